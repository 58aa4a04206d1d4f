#pragma once
/// Shared plumbing of the readers' libFuzzer targets: the readers take paths, so each input is
/// written to a per-process file first, and read into a sink that discards everything.

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "evidence/records.h"

namespace fastci::evidence {

/// Discards what a reader streams, but touches it so that sanitizers see every field.
class DiscardingSink : public EvidenceSink {
 public:
  void begin_run(const Run& run) override { bytes += run.source_file.size(); }
  void add_test(TestEvidence&& test) override {
    bytes += test.test_id.size();
    for (const auto& file : test.coverage) bytes += file.path.size() + file.lines.size();
    for (const auto& kernel : test.kernels) bytes += kernel.name.size() + kernel.template_arguments.size();
  }
  void warn(Warning warning) override { bytes += warning.message.size(); }
  std::size_t bytes = 0;
};

/// Writes the fuzz input to a file of this process (in /dev/shm when it exists) and returns its path.
inline std::filesystem::path fuzz_input_file(const std::uint8_t* data, std::size_t size, const char* suffix) {
  const std::filesystem::path dir = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  const auto path = dir / ("fastci_fuzz_" + std::to_string(::getpid()) + suffix);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace fastci::evidence

/// The whole libFuzzer entry point of a reader that takes a path and a sink, with its sniffer.
#define FASTCI_READER_FUZZ_TARGET(read, sniff, suffix)                                                 \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {                 \
    const auto file = fastci::evidence::fuzz_input_file(data, size, suffix);                           \
    fastci::evidence::DiscardingSink sink;                                                             \
    (void)fastci::evidence::read(file, sink);                                                          \
    (void)fastci::evidence::sniff(std::string_view(reinterpret_cast<const char*>(data), size), file);  \
    return 0;                                                                                          \
  }
