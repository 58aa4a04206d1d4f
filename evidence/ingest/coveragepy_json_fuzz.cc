// libFuzzer target: coverage.py JSON reports must never crash the reader.
#include "evidence/ingest/coveragepy_json.h"
#include "evidence/ingest/lcov_fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastci::evidence;
  const auto file = fuzz_input_file(data, size, ".json");
  DiscardingSink sink;
  (void)read_coveragepy_json(file, sink);
  (void)sniff_coveragepy_json(std::string_view(reinterpret_cast<const char*>(data), size), file);
  return 0;
}
