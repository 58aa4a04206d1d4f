// libFuzzer target: gcov JSON (plain or gzip, one or more documents) must never crash the reader.
#include "evidence/ingest/gcov_json_reader.h"
#include "evidence/ingest/lcov_fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastci::evidence;
  const auto file = fuzz_input_file(data, size, ".gcov.json");
  DiscardingSink sink;
  (void)read_gcov_json(file, sink);
  (void)sniff_gcov_json(std::string_view(reinterpret_cast<const char*>(data), size), file);
  return 0;
}
