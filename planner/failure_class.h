#pragma once
/// Failures that are not a change's risk: a test already failing where the change starts
/// (known-failing) or one whose outcome flips without a code change it reaches (flaky), classified
/// from its recorded runs with the evidence that decided it. Risk ordering puts these tests in a
/// lane of their own, run last; replay counts their failures neither as caught nor as missed.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "evidence/store/store.h"
#include "planner/git_repository.h"
#include "util/result.h"

namespace fastci::planner {

/// Why a test's failure is not taken as the change's.
enum class FailureClass {
  none,           ///< its failures, if any, count
  known_failing,  ///< failing where the change starts
  flaky,          ///< its outcome flipped at equal code
};

/// "known-failing", "flaky" or "none".
const char* to_string(FailureClass kind);

/// One recorded outcome of a test: passed or failed (skips carry no outcome and are left out).
struct OutcomeAt {
  std::string commit;
  bool failed = false;
};

/// A test's class and the evidence, in words, that put it there.
struct FailureClassification {
  FailureClass kind = FailureClass::none;
  std::string evidence;  ///< empty for none
};

/// Whether the commits from `from` to `to` changed code the test reaches.
using ReachedCodeChanged = std::function<bool(const std::string& from, const std::string& to)>;

/// Classifies a test from its outcomes recorded before the change `base..head`, oldest first:
/// flaky when two runs at one commit disagree or consecutive runs disagree across commits that
/// changed no code it reaches; known-failing when its latest run at `base` failed, or (no run at
/// base) its latest run failed and the commits from that run to `base` changed no code it reaches.
FailureClassification classify_failures(const std::vector<OutcomeAt>& runs, const std::string& base,
                                        const ReachedCodeChanged& changed);

/// Decides "did from..to change code this test reaches" from git and the files the test's recorded
/// coverage touched (read from the store once per test). A change to native code (C, C++, CUDA:
/// Python coverage does not see it), any code change for a test without coverage, or a commit the
/// repository lacks counts as reached: the classes must never make a code failure look like the
/// environment's. Documentation, CI files and data reach no test.
class ReachedCode {
 public:
  /// `store` may be null: then no test has coverage and every change counts.
  ReachedCode(const GitRepository& repo, evidence::Store* store) : repo_(repo), store_(store) {}
  /// Whether from..to changed a file the test reached (diffs read once per commit pair).
  util::Result<bool> changed(const std::string& test_id, const std::string& from, const std::string& to);
  /// The files from..to changed (old and new paths); none when the repository lacks a commit.
  const std::optional<std::vector<std::string>>& files_changed(const std::string& from, const std::string& to);

 private:
  const GitRepository& repo_;
  evidence::Store* store_;
  std::map<std::string, std::set<std::string>> covered_;
  std::map<std::pair<std::string, std::string>, std::optional<std::vector<std::string>>> changed_files_;
};

/// classify_failures for one test, with `reached` deciding equal code; fails only on a store error.
util::Result<FailureClassification> classify_test(const std::string& test_id, const std::vector<OutcomeAt>& runs,
                                                  const std::string& base, ReachedCode& reached);

/// Each test's passed and failed runs in the store, oldest first (the input of classify_test).
util::Result<std::map<std::string, std::vector<OutcomeAt>>> outcomes_in_store(evidence::Store& store);

/// Classes of `tests` from the store's runs, for the change from `base` (a resolved commit id).
/// Runs of commits the repository does not have are left out of the equal-code comparisons.
util::Result<std::map<std::string, FailureClassification>> classify_from_store(
    evidence::Store& store, const GitRepository& repo, const std::string& base, const std::vector<std::string>& tests);

}  // namespace fastci::planner
