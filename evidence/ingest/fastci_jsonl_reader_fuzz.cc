// libFuzzer target: fastci JSONL evidence files must never crash the reader.
#include "evidence/ingest/fastci_jsonl_reader.h"
#include "evidence/ingest/reader_fuzz_input.h"

FASTCI_READER_FUZZ_TARGET(read_fastci_jsonl, sniff_fastci_jsonl, ".jsonl")
