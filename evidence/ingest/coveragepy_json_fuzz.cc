// libFuzzer target: coverage.py JSON reports must never crash the reader.
#include "evidence/ingest/coveragepy_json.h"
#include "evidence/ingest/reader_fuzz_input.h"

FASTCI_READER_FUZZ_TARGET(read_coveragepy_json, sniff_coveragepy_json, ".json")
