#pragma once
/// From selected tests to the ordered plan: prune equivalent contexts, score risk, order by risk
/// (known-failing and flaky tests last), fit a time budget, and predict latency and GPU-hours on
/// a cluster.

#include <map>
#include <string>
#include <vector>

#include "planner/change_kind.h"
#include "planner/equivalence.h"
#include "planner/evidence_select.h"
#include "planner/failure_class.h"
#include "planner/risk.h"
#include "planner/select.h"
#include "planner/shrink.h"

namespace fastci::planner {

/// Knobs of prioritization.
struct PrioritizeOptions {
  PruneMode prune = PruneMode::safe;
  int cluster_gpus = 8;
  double budget_seconds = 0;        ///< 0: no budget
  double default_test_seconds = 60; ///< cost of a test with no recorded duration
  RiskWeights weights = RiskWeights::defaults();
  bool order_by_risk = true;
  const std::map<std::string, ShrinkDecision>* shrinks = nullptr;  ///< smaller sizes with evidence
  /// Tests whose failures are not the change's (known-failing, flaky): with risk ordering they run
  /// in a lane of their own after every other test, whatever their score.
  const std::map<std::string, FailureClassification>* failure_classes = nullptr;
  /// Kind of each changed symbol (kernel, numerics, parallelism) from what it is and calls; a symbol
  /// it does not name adds no change-kind feature.
  const std::map<std::string, ChangeKinds>* change_kinds = nullptr;
  /// With `failure_classes`: leave those tests out of the plan (`[tool.fastci] quarantine = true`).
  bool quarantine = false;
  /// Per test, its runs with commits as history points (test_history.h); when set, a test it does
  /// not name has no failure history. When not set, the evidence's outcomes stand in, with no
  /// commits to tell code failures from others.
  const std::map<std::string, std::vector<HistoryPoint>>* histories = nullptr;
};

/// One test of the ordered plan.
struct PlanEntry {
  SelectedTest selected;
  double predicted_seconds = 0;
  bool duration_known = false;
  int gpus = 1;
  double risk = 0;
  RiskFeatures features;
  std::map<std::string, std::string> overrides;  ///< workload overrides in the runner's form
  double full_seconds = 0;  ///< predicted duration at the test's own size (equal unless shrunk)
  int full_gpus = 1;        ///< GPUs at the test's own size
  std::string shrink_reason;  ///< why the test runs smaller; empty when it runs as written
  std::string shrink_mode;    ///< validation mode of a shrunk test ("exact")
  FailureClassification failure_class;  ///< known-failing or flaky: in the last lane, with why

  /// GPUs held x seconds as planned: the cost risk order divides by.
  double gpu_seconds() const { return predicted_seconds * gpus; }
};

/// A pruned test and who stands for it.
struct PrunedEntry {
  frontend::Test test;
  std::vector<std::string> kept_by;
  std::string reason;
  double predicted_seconds = 0;
};

/// Predicted cost of the plan against running everything.
struct Prediction {
  int cluster_gpus = 0;
  double plan_latency_seconds = 0, plan_gpu_hours = 0;
  double all_latency_seconds = 0, all_gpu_hours = 0;
};

/// The prioritized plan body.
struct Prioritized {
  std::vector<PlanEntry> ordered;
  std::vector<PrunedEntry> pruned;
  std::vector<SkippedTest> over_budget;  ///< left out by --budget, most valuable kept
  std::vector<SkippedTest> quarantined;  ///< known-failing or flaky, left out by `quarantine = true`
  Prediction prediction;
};

/// Per-test cost lookups for tests the evidence summary does not cover (skipped ones too).
struct CostTable {
  std::map<std::string, double> seconds;
  std::map<std::string, int> gpus;
};

/// Runs pruning, risk, ordering, budget and prediction.
Prioritized prioritize(const Selection& selection, const std::vector<SkippedTest>& skipped,
                       const std::map<std::string, TestEvidenceSummary>& evidence, const CostTable& costs,
                       int changed_lines, const PrioritizeOptions& options);

}  // namespace fastci::planner
