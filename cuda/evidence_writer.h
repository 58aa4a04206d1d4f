#pragma once
/// Writing collected launches as fastci evidence JSONL (docs/formats/evidence-jsonl.md).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuda/kernel_names.h"
#include "cuda/launch_table.h"
#include "util/result.h"

namespace fastci::cuda {

/// What the `run` line says.
struct RunInfo {
  std::string collector;   ///< "libfastci_launch 0.1"
  std::string started_at;  ///< ISO 8601 UTC
  std::string commit;      ///< FASTCI_COMMIT when set
  std::string runner;      ///< host name
  std::vector<std::pair<std::string, std::string>> environment;  ///< string values
};

/// One `kernel` line.
struct KernelRecord {
  std::string test;
  KernelName name;
  abi::Dim3 grid;
  abi::Dim3 block;
  std::uint64_t shared_memory = 0;
  std::uint64_t count = 0;
  double total_duration_us = 0;
  bool timed = false;  ///< total_duration_us is written only by collectors that measure it
};

/// A JSON string literal (quotes included).
std::string json_quote(std::string_view text);
/// The `run` line, without newline.
std::string format_run_line(const RunInfo& run);
/// A `kernel` line, without newline.
std::string format_kernel_line(const KernelRecord& record);
/// Records for a table snapshot, sorted by test, kernel name, grid, block, shared memory.
std::vector<KernelRecord> kernel_records(const std::vector<std::pair<LaunchKey, LaunchTotals>>& launches,
                                         const std::vector<std::string>& tests,
                                         const std::vector<std::string>& kernels, bool timed);
/// The run line followed by the kernel lines.
std::string format_evidence(const RunInfo& run, const std::vector<KernelRecord>& records);
/// Writes `content` to `path` through a temporary file and rename(), so readers never see half a file.
util::Status write_file_atomically(const std::string& path, std::string_view content);
/// Creates `directory` and its missing parents (mkdir -p); true when it exists afterwards.
bool make_directories(const std::string& directory);
/// `<directory>/fastci-<tag>-<pid>.jsonl`.
std::string evidence_path(std::string_view directory, std::string_view tag, long pid);
/// Now as ISO 8601 UTC ("2026-12-02T18:21:05Z").
std::string iso8601_utc_now();
/// Run info with host name, FASTCI_COMMIT, pid and command line filled in.
RunInfo describe_process(std::string collector, std::string started_at);

}  // namespace fastci::cuda
