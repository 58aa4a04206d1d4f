#pragma once
/// `fastci tune`: fits the risk model's weights on a recorded history (logistic regression on the
/// (test, commit) pairs fastci planned, code failures as labels) and scores the fit by
/// leave-one-commit-out APFD and APFDc against the default weights.

#include <cstddef>
#include <string>
#include <vector>

#include "planner/replay.h"
#include "planner/risk.h"
#include "util/result.h"

namespace fastci::planner {

/// One left-out commit's plan, ordered by the defaults and by weights fitted without that commit.
struct TuneFold {
  std::string entry;        ///< the commit, or "mutant of <commit>"
  std::size_t tests = 0;    ///< tests simulated
  double apfd_default = 0, apfdc_default = 0;
  double apfd_fitted = 0, apfdc_fitted = 0;
};

/// What tuning found.
struct TuneResult {
  bool fitted = false;       ///< false: too few failures, the defaults are kept
  std::string reason;        ///< why not fitted; empty when fitted
  RiskWeights weights;       ///< fitted on every sample, or the defaults
  std::size_t samples = 0;   ///< (test, entry) pairs with a passed or failed outcome
  std::size_t failures = 0;  ///< of those, failures (known-failing and flaky tests left out)
  std::size_t failing_commits = 0;  ///< commits (a real commit with its mutants) with a failure
  std::vector<TuneFold> folds;      ///< one per entry whose plan has at least 5 tests and a failure
};

/// Commits with a failure needed to fit: with one, leaving it out leaves nothing to learn from.
inline constexpr std::size_t kTuneMinimumFailingCommits = 2;

/// Replays `history` with fastci-prioritize, fits the weights on every planned (test, entry) pair
/// and scores leave-one-commit-out (a real commit and its mutants leave together).
util::Result<TuneResult> tune(const History& history, const ReplayOptions& options);

/// The fit as text for the terminal: counts, the fitted weights beside the defaults, every fold.
std::string format_tune(const TuneResult& result);

}  // namespace fastci::planner
