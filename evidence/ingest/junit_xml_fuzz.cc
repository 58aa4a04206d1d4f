// libFuzzer target: JUnit XML files (pytest and GoogleTest dialects) must never crash the reader.
#include "evidence/ingest/junit_xml.h"
#include "evidence/ingest/lcov_fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastci::evidence;
  const auto file = fuzz_input_file(data, size, ".xml");
  DiscardingSink sink;
  (void)read_junit(file, sink);
  (void)sniff_junit(std::string_view(reinterpret_cast<const char*>(data), size), file);
  return 0;
}
