// libFuzzer target: coverage.py SQLite data files (any bytes: SQLite must reject or read them) must never crash the reader.
#include "evidence/ingest/coveragepy_sqlite.h"
#include "evidence/ingest/reader_fuzz_input.h"

FASTCI_READER_FUZZ_TARGET(read_coveragepy_sqlite, sniff_coveragepy_sqlite, ".coverage")
