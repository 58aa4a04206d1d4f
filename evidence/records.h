#pragma once
/// The evidence data model: what one CI run observed, per test. Readers produce it, stores keep it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fastci::evidence {

/// One CI run (or one ingested file when the file says nothing about its run).
struct Run {
  std::string commit;       ///< full SHA the tests ran at; empty when unknown
  std::string started_at;   ///< ISO 8601 UTC
  std::string runner;       ///< CI runner or host name
  std::string environment;  ///< free-form JSON object (python/torch/cuda versions, GPU model)
  std::string source_format;///< reader that produced it ("coveragepy-sqlite", "junit", ...)
  std::string source_file;  ///< file it was read from
};

/// How a test ended.
enum class Outcome { passed, failed, error, skipped, xfailed, xpassed, unknown };

/// Inclusive line range [first, last], 1-based.
using LineRange = std::pair<int, int>;
/// A branch arc (from line, to line) as coverage.py records it; negative lines are entries/exits.
using Arc = std::pair<int, int>;

/// Lines and arcs of one file that one test executed.
struct FileCoverage {
  std::string path;               ///< repository-relative when the reader can tell, else as written
  std::vector<LineRange> lines;   ///< sorted, merged
  std::vector<Arc> arcs;
};

/// One distinct execution context in which a test ran a function (DESIGN.md "Equivalent contexts").
struct ExecutionContext {
  std::string function;      ///< "path/to/file.py::Qualified.name" or a C++/kernel symbol name
  std::vector<std::string> callers;  ///< caller stack, nearest first, k frames
  std::string arguments;     ///< abstract arguments, canonical text ("x:tensor[bf16,2,cpu,strided]")
  std::vector<Arc> arcs;     ///< arcs taken inside the function
  std::uint64_t count = 1;   ///< how many calls had this context
  /// Stable key of the context (function excluded): equal keys mean equivalent contexts.
  std::string key() const;
};

/// Kernel launches of one kernel with one configuration.
struct KernelLaunch {
  std::string name;               ///< demangled where possible
  std::string grid;               ///< "x,y,z"; empty when unknown
  std::string block;              ///< "x,y,z"
  std::uint64_t shared_memory = 0;
  std::vector<std::string> template_arguments;
  std::uint64_t count = 1;
  double total_duration_us = 0;   ///< 0 when the source has no timing
};

/// Everything known about one test in one run.
struct TestEvidence {
  std::string test_id;  ///< as the runner names it (pytest node id, gtest Suite.Name)
  std::optional<Outcome> outcome;
  std::optional<double> duration_seconds;
  int gpus = 0;
  std::map<std::string, std::string> knobs;  ///< workload knob values seen
  std::vector<FileCoverage> coverage;
  std::vector<ExecutionContext> contexts;
  std::vector<KernelLaunch> kernels;
  std::string message;  ///< failure message, truncated
};

/// A problem in an input file that did not stop reading it.
struct Warning {
  std::string file;
  int line = 0;
  std::string message;
};

/// Receives evidence as a reader streams it; a store implements it inside one transaction.
class EvidenceSink {
 public:
  virtual ~EvidenceSink() = default;
  /// Called once, before any test, with what the reader knows of the run.
  virtual void begin_run(const Run& run) = 0;
  /// Called once per test (a reader may call it again for the same id; the sink merges).
  virtual void add_test(TestEvidence&& test) = 0;
  virtual void warn(Warning warning) = 0;
};

const char* to_string(Outcome outcome);
std::optional<Outcome> outcome_from_string(std::string_view text);

}  // namespace fastci::evidence
