// libFuzzer target: coverage.py SQLite data files (any bytes: SQLite must reject or read them) must never crash the reader.
#include "evidence/ingest/coveragepy_sqlite.h"
#include "evidence/ingest/lcov_fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastci::evidence;
  const auto file = fuzz_input_file(data, size, ".coverage");
  DiscardingSink sink;
  (void)read_coveragepy_sqlite(file, sink);
  (void)sniff_coveragepy_sqlite(std::string_view(reinterpret_cast<const char*>(data), size), file);
  return 0;
}
