// libFuzzer target: llvm-cov export JSON must never crash the reader.
#include "evidence/ingest/lcov_fuzz_input.h"
#include "evidence/ingest/llvm_cov_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastci::evidence;
  const auto file = fuzz_input_file(data, size, ".llvm-cov.json");
  DiscardingSink sink;
  (void)read_llvm_cov(file, sink);
  (void)sniff_llvm_cov(std::string_view(reinterpret_cast<const char*>(data), size), file);
  return 0;
}
