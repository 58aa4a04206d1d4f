// libFuzzer target: gcov JSON (plain or gzip, one or more documents) must never crash the reader.
#include "evidence/ingest/gcov_json_reader.h"
#include "evidence/ingest/reader_fuzz_input.h"

FASTCI_READER_FUZZ_TARGET(read_gcov_json, sniff_gcov_json, ".gcov.json")
