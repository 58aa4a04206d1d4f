#pragma once
/// An EvidenceSink that keeps everything it receives, for the native readers' tests.

#include <map>
#include <string>
#include <vector>

#include "evidence/records.h"

namespace fastci::evidence {

/// Records runs, tests (merged by id, as a store would) and warnings.
class RecordingSink : public EvidenceSink {
 public:
  void begin_run(const Run& run) override { runs.push_back(run); }
  void add_test(TestEvidence&& test) override {
    ++add_calls;
    auto& merged = tests[test.test_id];
    merged.test_id = test.test_id;
    for (auto& file : test.coverage) merged.coverage.push_back(std::move(file));
    for (auto& kernel : test.kernels) merged.kernels.push_back(std::move(kernel));
  }
  void warn(Warning warning) override { warnings.push_back(std::move(warning)); }

  /// Number of covered lines of one test, over all its files.
  long long covered_lines(const std::string& test_id) const {
    long long total = 0;
    const auto found = tests.find(test_id);
    if (found == tests.end()) return -1;
    for (const auto& file : found->second.coverage) {
      for (const auto& [first, last] : file.lines) total += last - first + 1;
    }
    return total;
  }

  std::vector<Run> runs;
  std::map<std::string, TestEvidence> tests;
  std::vector<Warning> warnings;
  int add_calls = 0;
};

}  // namespace fastci::evidence
