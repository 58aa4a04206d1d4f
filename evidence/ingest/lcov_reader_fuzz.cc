// libFuzzer target: lcov tracefiles (plain or gzip) must never crash the reader.
#include "evidence/ingest/reader_fuzz_input.h"
#include "evidence/ingest/lcov_reader.h"

FASTCI_READER_FUZZ_TARGET(read_lcov, sniff_lcov, ".info")
