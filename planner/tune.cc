#include "planner/tune.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace fastci::planner {
namespace {

/// Plans of fewer tests say little about their order (as replay.json's means).
constexpr std::size_t kFoldMinimumTests = 5;

/// A real commit and its mutants share one change: they form one group, left out together.
std::string group_of(const History& history, const RecordedCommit& entry) {
  if (!entry.is_mutant()) return entry.commit;
  for (const auto& c : history.commits)
    if (!c.is_mutant() && (c.commit.starts_with(entry.mutant_of) || entry.mutant_of.starts_with(c.commit)))
      return c.commit;
  return entry.mutant_of;
}

/// The row's plan re-ordered by `weights` as prioritize orders it (risk order, the known-failing
/// and flaky lane last), then simulated and scored.
RunMetrics reorder_and_measure(const ReplayRow& row, const RiskWeights& weights, int cluster_gpus) {
  std::vector<double> risks, costs;
  for (const auto& t : row.planned) {
    risks.push_back(risk_score(t.features, weights));
    costs.push_back(t.predicted_seconds * std::max(t.gpus, 1));
  }
  auto order = order_by_risk(risks, costs);
  std::stable_partition(order.begin(), order.end(),
                        [&](std::size_t i) { return row.planned[i].lane == FailureClass::none; });
  std::vector<std::string> ids;
  for (auto i : order) ids.push_back(row.planned[i].id);
  return measure_order(ids, row.results, cluster_gpus);
}

}  // namespace

util::Result<TuneResult> tune(const History& history, const ReplayOptions& options) {
  ReplayOptions replay_options = options;
  replay_options.weights = RiskWeights::defaults();
  auto reports = replay(history, {ReplayStrategy::fastci_prioritize}, replay_options);
  if (!reports.ok()) return reports.error();
  const auto& rows = reports->front().rows;

  // Samples: every planned test with a passed or failed outcome, labelled by that outcome.
  std::vector<std::vector<RiskSample>> samples_of(rows.size());
  std::vector<std::string> groups(rows.size());
  std::set<std::string> failing_groups;
  TuneResult out;
  for (std::size_t c = 0; c < rows.size(); ++c) {
    groups[c] = group_of(history, history.commits[c]);
    std::map<std::string, const RecordedResult*> result_of;
    for (const auto& r : rows[c].results) result_of[r.test_id] = &r;
    for (const auto& t : rows[c].planned) {
      auto r = result_of.find(t.id);
      if (r == result_of.end() || t.lane != FailureClass::none) continue;
      bool failed = r->second->failed();
      if (!failed && r->second->outcome != "passed") continue;  // skipped: no label
      samples_of[c].push_back({t.features, failed});
      ++out.samples;
      if (failed) {
        ++out.failures;
        failing_groups.insert(groups[c]);
      }
    }
  }
  out.failing_commits = failing_groups.size();
  out.weights = RiskWeights::defaults();
  if (out.failing_commits < kTuneMinimumFailingCommits) {
    out.reason = "too few failures to fit: " + std::to_string(out.failures) + " failing (test, commit) pairs in " +
                 std::to_string(out.failing_commits) + " commits, at least " +
                 std::to_string(kTuneMinimumFailingCommits) + " commits with a failure needed";
    return out;
  }
  auto fit_without = [&](const std::string& left_out) {
    std::vector<RiskSample> training;
    for (std::size_t c = 0; c < rows.size(); ++c)
      if (groups[c] != left_out) training.insert(training.end(), samples_of[c].begin(), samples_of[c].end());
    return fit_risk_weights(training);
  };
  out.weights = fit_without("");
  out.fitted = true;
  std::map<std::string, RiskWeights> fitted_without;
  for (std::size_t c = 0; c < rows.size(); ++c) {
    const auto& row = rows[c];
    if (row.metrics.tests_run < kFoldMinimumTests || row.metrics.failures_caught == 0) continue;
    auto weights = fitted_without.find(groups[c]);
    if (weights == fitted_without.end()) weights = fitted_without.emplace(groups[c], fit_without(groups[c])).first;
    auto by_default = reorder_and_measure(row, RiskWeights::defaults(), history.cluster_gpus);
    auto by_fit = reorder_and_measure(row, weights->second, history.cluster_gpus);
    const auto& entry = history.commits[c];
    out.folds.push_back({entry.is_mutant() ? "mutant of " + entry.mutant_of.substr(0, 10) : entry.commit.substr(0, 10),
                         row.metrics.tests_run, by_default.apfd.value_or(0), by_default.apfd_cost.value_or(0),
                         by_fit.apfd.value_or(0), by_fit.apfd_cost.value_or(0)});
  }
  return out;
}

std::string format_tune(const TuneResult& result) {
  std::ostringstream out;
  out << result.samples << " (test, commit) samples, " << result.failures << " failures in " << result.failing_commits
      << " commits (known-failing and flaky tests left out)\n";
  if (!result.fitted) {
    out << result.reason << ": keeping the default weights\n";
    return out.str();
  }
  auto defaults = RiskWeights::defaults();
  out << "\n| weight | default | fitted |\n|---|---:|---:|\n";
  for (std::size_t i = 0; i < RiskFeatures::kCount; ++i)
    out << "| " << RiskFeatures::names()[i] << " | " << fixed(defaults.weights[i], 3) << " | "
        << fixed(result.weights.weights[i], 3) << " |\n";
  out << "| bias | " << fixed(defaults.bias, 3) << " | " << fixed(result.weights.bias, 3) << " |\n";
  out << "\nLeave-one-commit-out (a commit and its mutants left out together), plans of at least "
      << kFoldMinimumTests << " tests with a failure:\n\n"
      << "| left out | tests | APFD default | APFD fitted | APFDc default | APFDc fitted |\n"
      << "|---|---:|---:|---:|---:|---:|\n";
  double apfd_d = 0, apfd_f = 0, apfdc_d = 0, apfdc_f = 0;
  for (const auto& f : result.folds) {
    out << "| " << f.entry << " | " << f.tests << " | " << fixed(f.apfd_default, 3) << " | " << fixed(f.apfd_fitted, 3)
        << " | " << fixed(f.apfdc_default, 3) << " | " << fixed(f.apfdc_fitted, 3) << " |\n";
    apfd_d += f.apfd_default;
    apfd_f += f.apfd_fitted;
    apfdc_d += f.apfdc_default;
    apfdc_f += f.apfdc_fitted;
  }
  if (!result.folds.empty()) {
    double n = static_cast<double>(result.folds.size());
    out << "| mean | | " << fixed(apfd_d / n, 3) << " | " << fixed(apfd_f / n, 3) << " | " << fixed(apfdc_d / n, 3)
        << " | " << fixed(apfdc_f / n, 3) << " |\n";
  } else {
    out << "| (no plan of " << kFoldMinimumTests << "+ tests with a failure) | | | | | |\n";
  }
  return out.str();
}

}  // namespace fastci::planner
