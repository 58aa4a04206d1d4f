// libFuzzer target: JUnit XML files (pytest and GoogleTest dialects) must never crash the reader.
#include "evidence/ingest/junit_xml.h"
#include "evidence/ingest/reader_fuzz_input.h"

FASTCI_READER_FUZZ_TARGET(read_junit, sniff_junit, ".xml")
