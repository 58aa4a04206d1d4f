// libFuzzer target: llvm-cov export JSON must never crash the reader.
#include "evidence/ingest/reader_fuzz_input.h"
#include "evidence/ingest/llvm_cov_reader.h"

FASTCI_READER_FUZZ_TARGET(read_llvm_cov, sniff_llvm_cov, ".llvm-cov.json")
