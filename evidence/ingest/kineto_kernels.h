#pragma once
/// Kernel launches as GPU traces report them: names, template arguments, and aggregation of
/// launches per (test, kernel, grid, block, shared memory). Shared by the Kineto and Nsight readers.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "evidence/records.h"

namespace fastci::evidence {

/// The top-level template arguments of a demangled kernel name, in order: for
/// "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, ...)"
/// {"4", "at::native::FillFunctor<float>", "at::detail::Array<char*, 1>"}; empty for a plain name.
std::vector<std::string> kernel_template_arguments(std::string_view demangled_name);

/// The demangled form of an Itanium-mangled name ("_Z..."); other names unchanged.
std::string demangle_kernel_name(std::string_view name);

/// "x,y,z" from three dimensions.
std::string dimensions_text(std::int64_t x, std::int64_t y, std::int64_t z);

/// One launch configuration of one kernel.
struct KernelConfig {
  std::string name;
  std::string grid;   ///< "x,y,z"; empty when the trace does not say
  std::string block;  ///< "x,y,z"
  std::uint64_t shared_memory = 0;
};

/// Counts launches and sums durations per (test, configuration).
class KernelTable {
 public:
  /// A small id for a configuration, stable for the life of the table.
  std::uint32_t intern(const KernelConfig& config);
  /// A small id for a test id ("" for launches outside any test).
  std::uint32_t intern_test(std::string_view test_id);
  /// Records one launch.
  void add(std::uint32_t test, std::uint32_t config, double duration_us);
  /// Total launches recorded.
  std::uint64_t launches() const { return launches_; }
  /// One add_test per test that launched anything, kernels in first-seen configuration order.
  void emit(EvidenceSink& sink) const;

 private:
  struct Totals {
    std::uint64_t count = 0;
    double duration_us = 0;
  };
  std::vector<KernelConfig> configs_;
  std::unordered_map<std::string, std::uint32_t> config_ids_;
  std::vector<std::string> tests_;
  std::unordered_map<std::string, std::uint32_t> test_ids_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, Totals> totals_;  // (test, config)
  std::uint64_t launches_ = 0;
};

/// Time ranges that name a test (record_function, NVTX), for finding the test a launch ran in.
class TestRangeIndex {
 public:
  /// Adds [start, end] on (process, thread), small dense ids chosen by the caller.
  void add(std::uint32_t process, std::uint32_t thread, double start, double end, std::uint32_t test);
  /// Call once after the last add() and before find().
  void sort();
  /// The innermost range containing `ts` on the same thread, else on any thread of the same
  /// process: autograd launches backward kernels from its own thread, outside the range the test
  /// opened, and one process runs one test at a time.
  std::optional<std::uint32_t> find(std::uint32_t process, std::uint32_t thread, double ts) const;
  /// Number of ranges added.
  std::size_t size() const { return count_; }

 private:
  struct Range {
    double start = 0;
    double end = 0;
    std::uint32_t test = 0;
  };
  static std::optional<std::uint32_t> innermost(const std::vector<Range>& ranges, double ts);
  std::vector<std::vector<Range>> by_thread_;
  std::vector<std::vector<Range>> by_process_;
  std::size_t count_ = 0;
};

}  // namespace fastci::evidence
