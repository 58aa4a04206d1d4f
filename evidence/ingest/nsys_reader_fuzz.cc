// libFuzzer target: arbitrary bytes (seeded with real SQLite files) must never crash the Nsight
// Systems reader; SQLite itself reports corrupt databases.
#include "evidence/ingest/reader_fuzz_input.h"
#include "evidence/ingest/nsys_reader.h"

FASTCI_READER_FUZZ_TARGET(read_nsys, sniff_nsys, ".sqlite")
