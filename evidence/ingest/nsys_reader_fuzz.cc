// libFuzzer target: arbitrary bytes (seeded with real SQLite files) must never crash the Nsight
// Systems reader; SQLite itself reports corrupt databases.
#include "evidence/ingest/lcov_fuzz_input.h"
#include "evidence/ingest/nsys_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastci::evidence;
  const auto file = fuzz_input_file(data, size, ".sqlite");
  DiscardingSink sink;
  (void)read_nsys(file, sink);
  (void)sniff_nsys(std::string_view(reinterpret_cast<const char*>(data), size), file);
  return 0;
}
