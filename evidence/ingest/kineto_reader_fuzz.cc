// libFuzzer target: Chrome traces must never crash the Kineto reader, in both attribution modes,
// and kernel names of any shape must never crash the template-argument parser.
#include "evidence/ingest/kineto_kernels.h"
#include "evidence/ingest/kineto_reader.h"
#include "evidence/ingest/reader_fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastci::evidence;
  const auto file = fuzz_input_file(data, size, ".json");
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  DiscardingSink ranges, whole;
  (void)read_kineto(file, ranges, KinetoOptions{.test_id = {}, .test_id_of_range = [](std::string_view name) {
                                                  return std::optional<std::string>(std::string(name));
                                                }});
  (void)read_kineto(file, whole, KinetoOptions{.test_id = "t", .test_id_of_range = {}});
  (void)sniff_kineto(text, file);
  (void)kernel_template_arguments(text);
  return 0;
}
