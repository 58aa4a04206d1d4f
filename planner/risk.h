#pragma once
/// Risk prioritization: a logistic score per selected test from what the change does and the
/// test's history, ordered by risk per GPU-second (docs/risk.md has the formula).

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace fastci::planner {

/// The features of one (change, test) pair, each scaled to about [0, 1].
struct RiskFeatures {
  double contexts = 0;         ///< log2(1 + distinct changed contexts hit) / 4
  double proximity = 0;        ///< 1 / (1 + call-graph distance); 0 when not reached by a path
  double kernel_change = 0;    ///< 1 when a changed symbol is a kernel, device code, or launches one
  double numerics_change = 0;  ///< 1 when a changed symbol calls casts, autocast, reductions (change_kind.h)
  double parallel_change = 0;  ///< 1 when it calls torch.distributed, directly or through a repository function
  double change_size = 0;      ///< log2(1 + changed lines) / 10
  double failure_rate = 0;     ///< recency-weighted share of runs that failed after a code change
  double cofailure = 0;        ///< share of those failures whose commits touched the changed files
  double flakiness = 0;        ///< share of outcome flips without a code change it reaches
  double specificity = 0;      ///< ln(its share of the change's faults / the mean share) (specificity.h)

  static constexpr std::size_t kCount = 10;
  std::array<double, kCount> values() const;
  static const std::array<const char*, kCount>& names();
};

/// Weights of the logistic model.
struct RiskWeights {
  std::array<double, RiskFeatures::kCount> weights{};
  double bias = 0;
  /// Hand-set defaults, used until `fastci tune` fits weights on a recorded history.
  static RiskWeights defaults();
  std::string to_json() const;
  static util::Result<RiskWeights> from_json(std::string_view text);
  /// The weights file `fastci tune` wrote; errors name the file.
  static util::Result<RiskWeights> from_file(const std::string& path);
};

/// Probability-like risk in (0, 1).
double risk_score(const RiskFeatures& features, const RiskWeights& weights);

/// One outcome of a test at a commit, oldest first, for history features (test_history.h).
struct HistoryPoint {
  bool failed = false;
  bool code_changed = true;        ///< the commits since its previous run changed code it reaches
  bool touched_changed_files = false;  ///< they touched a file of the current change
};

/// Fills failure_rate (recency-weighted, half-life in runs) and cofailure from the failures that
/// came with a change to code the test reaches, and flakiness from flips that came without one.
void history_features(const std::vector<HistoryPoint>& history, RiskFeatures& features,
                      double half_life_runs = 10);

/// A labelled sample for fitting: features of a (change, test) pair and whether the test failed.
struct RiskSample {
  RiskFeatures features;
  bool failed = false;
};

/// Logistic regression by batch gradient descent with L2 regularisation (no framework needed).
RiskWeights fit_risk_weights(const std::vector<RiskSample>& samples, int iterations = 2000,
                             double learning_rate = 0.5, double l2 = 1e-3);

/// Costs below this count as this: recorded durations already hold pytest's per-test overhead, so
/// the floor only keeps a test recorded at 0 s from dividing by zero (docs/risk.md has the sweep).
constexpr double kCostFloorGpuSeconds = 0.01;

/// Expected failures found per GPU-second: the key the plan is ordered by.
double risk_per_gpu_second(double risk, double gpu_seconds, double cost_floor = kCostFloorGpuSeconds);

/// Indices of tests in the order that finds a failure soonest for the GPU time spent: risk per cost
/// (Smith's rule), ties by risk, then cheapest, then input order.
std::vector<std::size_t> order_by_risk(const std::vector<double>& risks, const std::vector<double>& costs,
                                       double cost_floor = kCostFloorGpuSeconds);

}  // namespace fastci::planner
