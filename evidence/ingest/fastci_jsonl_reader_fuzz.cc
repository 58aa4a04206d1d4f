// libFuzzer target: fastci JSONL evidence files must never crash the reader.
#include "evidence/ingest/fastci_jsonl_reader.h"
#include "evidence/ingest/lcov_fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastci::evidence;
  const auto file = fuzz_input_file(data, size, ".jsonl");
  DiscardingSink sink;
  (void)read_fastci_jsonl(file, sink);
  (void)sniff_fastci_jsonl(std::string_view(reinterpret_cast<const char*>(data), size), file);
  return 0;
}
