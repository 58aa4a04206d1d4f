// libFuzzer target: lcov tracefiles (plain or gzip) must never crash the reader.
#include "evidence/ingest/lcov_fuzz_input.h"
#include "evidence/ingest/lcov_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastci::evidence;
  const auto file = fuzz_input_file(data, size, ".info");
  DiscardingSink sink;
  (void)read_lcov(file, sink);
  (void)sniff_lcov(std::string_view(reinterpret_cast<const char*>(data), size), file);
  return 0;
}
