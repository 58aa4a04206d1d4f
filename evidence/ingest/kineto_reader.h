#pragma once
/// Reader for PyTorch profiler (Kineto) Chrome traces: GPU kernel launches per test.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// The test id a record_function / user_annotation range stands for, or nullopt for other ranges.
using RangeTestId = std::function<std::optional<std::string>(std::string_view range_name)>;

/// A pytest node id ("tests/unit/test_x.py::TestA::test_b[bf16]") used as a range name names that
/// test; any other range name (ProfilerStep#3, aten::mm) names none.
std::optional<std::string> pytest_node_id_range(std::string_view range_name);

/// How kernels are attributed to tests.
struct KinetoOptions {
  /// When set, every launch in the file belongs to this test and ranges are not looked at.
  std::string test_id;
  /// Otherwise a launch belongs to the innermost CPU range (cat "user_annotation", or "Operator"
  /// in 2021 traces) that names a test and contains the launching runtime call on the same thread,
  /// else on another thread of the same process (autograd's backward thread); launches outside
  /// every such range get the empty test id.
  RangeTestId test_id_of_range = pytest_node_id_range;
};

/// Streams a Chrome trace (plain or gzip) into `sink`: per test, kernel launches aggregated by
/// (name, grid, block, shared memory) with counts and total duration. Kernels are events with
/// cat "kernel" (or 2021's "Kernel"); runtime calls are "cuda_runtime"/"cuda_driver" (2021:
/// "Runtime"), matched through args "correlation" (else "External id"/"external id").
util::Status read_kineto(const std::filesystem::path& file, EvidenceSink& sink);
/// As above, with explicit options.
util::Status read_kineto(const std::filesystem::path& file, EvidenceSink& sink, const KinetoOptions& options);

/// Whether a file head (raw bytes, possibly gzip) looks like a Chrome trace.
bool sniff_kineto(std::string_view head, const std::filesystem::path& file);

}  // namespace fastci::evidence
