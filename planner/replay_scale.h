#pragma once
/// CI at PyTorch's scale, from PyTorch's own statistics (../shared/data/pytorch-ci): per-file test
/// times of every CI job and a profiled source-file -> test-file map. For every source file of the
/// map, a change to it alone is planned two ways and simulated on a cluster against running the job
/// whole.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "util/result.h"

namespace fastci::planner {

/// test-times.json and td_heuristic_profiling.json, with test file names normalised (runner path
/// prefixes such as /__w/pytorch/pytorch/test/ removed).
struct PytorchCiData {
  /// job -> test config -> test file -> seconds
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> test_times;
  /// source file -> test files that executed it when profiled
  std::map<std::string, std::vector<std::string>> tests_of_source;
  std::size_t map_pairs = 0;
};

/// Reads the two files; errors name the file and what was expected.
util::Result<PytorchCiData> load_pytorch_ci(const std::filesystem::path& folder);

/// Distribution of one plan kind over all single-file changes.
struct ScaleSummary {
  double mean_tests = 0, mean_latency_seconds = 0, median_latency_seconds = 0, p90_latency_seconds = 0;
  double mean_gpu_hours = 0;
};

/// One job/config simulated.
struct ScaleResult {
  std::string job, config;
  int cluster_gpus = 0;
  std::size_t test_files = 0;        ///< in the job/config
  std::size_t unmapped_test_files = 0;  ///< of those, in no profiled pair: no evidence for them
  std::size_t changes = 0;           ///< source files of the map, each changed alone
  double all_latency_seconds = 0, all_gpu_hours = 0;
  ScaleSummary coverage_only;        ///< the map's test files only (what a coverage-only selector runs)
  ScaleSummary with_unknowns;        ///< plus every test file with no evidence (fastci's rule)
};

/// Simulates one job/config: test files one per GPU slot, longest first, list-scheduled.
util::Result<ScaleResult> simulate_pytorch_ci(const PytorchCiData& data, const std::string& job,
                                              const std::string& config, int cluster_gpus);

/// A Markdown table of results.
std::string format_scale(const std::vector<ScaleResult>& results);

}  // namespace fastci::planner
