#pragma once
/// Workload shrinking inside the plan: a selected test runs at a smaller size where the evidence
/// store holds a passing run of it at that size with the same evidence as at its own size.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "evidence/store/store.h"
#include "frontend/facts.h"
#include "planner/change_set.h"
#include "util/result.h"

namespace fastci::planner {

/// The evidence names ("path.py::Class.method") of a change's Python symbols, modules left out, to
/// compare runs on; empty (compare everything) when the change has non-Python symbols.
std::set<std::string> shrink_comparison_functions(const ChangeSet& changes);

/// The size one test is planned at, and why.
struct ShrinkDecision {
  int gpus = 0;                   ///< world size to run at
  double seconds = 0;             ///< recorded duration at that size
  int original_gpus = 0;
  double original_seconds = 0;
  std::string override_text;      ///< in the runner's form: --fastci-world-size=TEST=N
  std::string mode;               ///< validation mode ("exact": the test's own checks apply)
  std::string reason;
};

/// Decisions for the tests that shrink; tests without a decision run as written. Only world_size
/// (DeepSpeed's DistributedTest, or a world_size mark) is decided here, from runs in the store.
/// `changed_functions` (evidence names, "path.py::Class.method") narrows the comparison to the
/// change's functions and their contexts; empty compares everything the runs executed.
util::Result<std::map<std::string, ShrinkDecision>> decide_shrinks(const std::vector<frontend::Test>& tests,
                                                                   evidence::Store& store,
                                                                   const std::set<std::string>& changed_functions);

}  // namespace fastci::planner
