#pragma once
/// The workload shrinker: per test, which knobs shrink to what, why, in which validation mode, at what cost.

#include <set>
#include <string>
#include <vector>

#include "planner/workload/catalogue.h"
#include "planner/workload/constraints.h"
#include "planner/workload/cost_model.h"
#include "planner/workload/workload.h"
#include "util/result.h"

namespace fastci::planner::workload {

/// Limits of the shrinks that rest on knowing a knob only repeats work (data/megatron.toml [runner]).
struct ShrinkRules {
  long long train_iters_floor = 10;  ///< fewest training iterations proposed
  int layers_kept_per_chunk = 2;     ///< first and last layer of each pipeline chunk
};

/// Reads the [runner] limits of a runner data file (train_iters_floor, layers_kept_per_chunk).
util::Result<ShrinkRules> load_shrink_rules(const std::string& path);

/// Inputs beyond the test itself.
struct ProposeOptions {
  CostParameters cost;
  ShrinkRules rules;
  /// When set, evidence runs are compared on these covered symbols only (the change's symbols).
  const std::set<std::string>* changed_symbols = nullptr;
};

/// Proposes the shrunk workload of `test`. `allowed` bounds the validation mode: none (propose
/// nothing), exact (only shrinks whose result the test's own checks still judge), differential
/// (golden-value tests may shrink, paired with a base-commit run at the same size).
WorkloadProposal propose(const TestWorkload& test, const Catalogue& catalogue, const Constraints& constraints,
                         const std::vector<SizedRun>& history, ValidationMode allowed,
                         const ProposeOptions& options = {});

}  // namespace fastci::planner::workload
