#include "planner/prioritize.h"

#include <algorithm>
#include <cmath>

#include "planner/schedule.h"
#include "planner/specificity.h"

namespace fastci::planner {
namespace {

struct Cost {
  double seconds;
  bool known;
  int gpus;
};

Cost cost_of(const frontend::Test& test, const TestEvidenceSummary* ev, const CostTable& table,
             double default_seconds) {
  Cost c{default_seconds, false, std::max(test.gpus, 0)};
  if (auto it = table.seconds.find(test.id); it != table.seconds.end()) c = {it->second, true, c.gpus};
  if (ev && ev->seconds > 0) c = {ev->seconds, true, c.gpus};
  if (c.gpus == 0) {
    if (ev && ev->gpus > 0) c.gpus = ev->gpus;
    else if (auto it = table.gpus.find(test.id); it != table.gpus.end()) c.gpus = it->second;
  }
  return c;
}

/// Only a test selected purely by evidence may be pruned: any other reason means fastci does not
/// know the contexts it would exercise.
std::string protection(const SelectedTest& s, const TestEvidenceSummary* ev) {
  if (!ev || !ev->has_evidence) return "no evidence";
  if (ev->failed_recently) return "failed recently";
  for (const auto& r : s.reasons) {
    if (r.kind == SelectionReason::Kind::own_file) return "its own file changed";
    if (r.kind == SelectionReason::Kind::always_run) return "always-run";
    if (r.kind != SelectionReason::Kind::evidence) return std::string("selected by ") + to_string(r.kind);
  }
  return {};
}

RiskFeatures features_of(const SelectedTest& s, double specificity, const TestEvidenceSummary* ev,
                         const std::map<std::string, ChangeKinds>* change_kinds, int changed_lines,
                         const std::map<std::string, std::vector<HistoryPoint>>* histories) {
  RiskFeatures f;
  std::size_t contexts = ev ? ev->pairs.size() : 0;
  f.contexts = std::log2(1.0 + contexts) / 4.0;
  f.proximity = s.distance >= 0 ? 1.0 / (1.0 + s.distance) : (ev && !ev->covered_changed.empty() ? 0.5 : 0.0);
  for (const auto& r : s.reasons) {
    if (!change_kinds) break;
    auto it = change_kinds->find(r.changed_symbol);
    if (it == change_kinds->end()) continue;
    f.kernel_change = std::max(f.kernel_change, it->second.kernel ? 1.0 : 0.0);
    f.numerics_change = std::max(f.numerics_change, it->second.numerics ? 1.0 : 0.0);
    f.parallel_change = std::max(f.parallel_change, it->second.parallel ? 1.0 : 0.0);
  }
  f.change_size = std::log2(1.0 + changed_lines) / 10.0;
  f.specificity = specificity;
  if (histories) {
    if (auto it = histories->find(s.test.id); it != histories->end()) history_features(it->second, f);
  } else if (ev) {
    std::vector<HistoryPoint> history;
    for (bool failed : ev->recent_failures) history.push_back({failed, true, false});
    history_features(history, f);
  }
  return f;
}

/// A shrunk test costs what its run at the smaller size took.
void apply_shrink(const ShrinkDecision& shrink, PlanEntry& e) {
  // the latest recorded duration may be the smaller run's: the full size's comes from its own run
  if (shrink.original_seconds > 0) e.full_seconds = shrink.original_seconds;
  e.full_gpus = std::max(shrink.original_gpus, 1);
  e.gpus = shrink.gpus;
  if (shrink.seconds > 0) {
    e.predicted_seconds = shrink.seconds;
    e.duration_known = true;
  }
  e.overrides["pytest"] = shrink.override_text;
  e.shrink_reason = shrink.reason;
  e.shrink_mode = shrink.mode;
}

}  // namespace

Prioritized prioritize(const Selection& selection, const std::vector<SkippedTest>& skipped,
                       const std::map<std::string, TestEvidenceSummary>& evidence, const CostTable& costs,
                       int changed_lines, const PrioritizeOptions& options) {
  auto evidence_of = [&](const std::string& id) -> const TestEvidenceSummary* {
    auto it = evidence.find(id);
    return it == evidence.end() ? nullptr : &it->second;
  };

  // Pruning over the selected tests.
  std::vector<PruneCandidate> candidates;
  std::vector<Cost> cost(selection.selected.size());
  for (std::size_t i = 0; i < selection.selected.size(); ++i) {
    const auto& s = selection.selected[i];
    const auto* ev = evidence_of(s.test.id);
    cost[i] = cost_of(s.test, ev, costs, options.default_test_seconds);
    std::string guard = protection(s, ev);
    candidates.push_back({s.test.id, ev ? ev->pairs : std::set<ContextPair>{},
                          cost[i].seconds * std::max(cost[i].gpus, 1), !guard.empty(), guard});
  }
  auto pruned = prune_equivalent(candidates, options.prune);
  // Over every selected test, pruned ones included: they reach the change as much as the kept.
  auto specificity = specificities(selection.selected);
  std::set<std::string> kept(pruned.kept.begin(), pruned.kept.end());

  Prioritized out;
  // An entry is large (a copy of the selected test, its reasons and witness paths): sized once, not
  // grown by doubling, which left a third of ten thousand entries unused at the cold peak.
  out.ordered.reserve(kept.size());
  std::vector<double> risks, gpu_seconds;
  std::vector<ScheduledJob> all_quarantined;  // still part of what running everything costs
  for (std::size_t i = 0; i < selection.selected.size(); ++i) {
    const auto& s = selection.selected[i];
    if (!kept.count(s.test.id)) continue;
    PlanEntry e;
    e.selected = s;
    e.predicted_seconds = cost[i].seconds;
    e.duration_known = cost[i].known;
    e.gpus = std::max(cost[i].gpus, 1);
    e.full_seconds = e.predicted_seconds;
    e.full_gpus = e.gpus;
    if (options.shrinks)
      if (auto it = options.shrinks->find(s.test.id); it != options.shrinks->end()) apply_shrink(it->second, e);
    if (options.failure_classes)
      if (auto it = options.failure_classes->find(s.test.id); it != options.failure_classes->end())
        e.failure_class = it->second;
    if (options.quarantine && e.failure_class.kind != FailureClass::none) {
      // Its failure would say nothing about the change; the user chose not to spend GPUs on it.
      out.quarantined.push_back({s.test, std::string("quarantined, ") + to_string(e.failure_class.kind) + ": " +
                                             e.failure_class.evidence});
      all_quarantined.push_back({s.test.id, e.full_gpus, e.full_seconds});
      continue;
    }
    e.features = features_of(s, specificity[i], evidence_of(s.test.id), options.change_kinds, changed_lines, options.histories);
    e.risk = risk_score(e.features, options.weights);
    risks.push_back(e.risk);
    gpu_seconds.push_back(e.gpu_seconds());
    out.ordered.push_back(std::move(e));
  }
  for (const auto& p : pruned.pruned) {
    auto it = std::find_if(selection.selected.begin(), selection.selected.end(),
                           [&](const SelectedTest& s) { return s.test.id == p.test_id; });
    std::size_t i = static_cast<std::size_t>(it - selection.selected.begin());
    std::string by;
    for (const auto& k : p.kept_by) by += (by.empty() ? "" : ", ") + k;
    out.pruned.push_back({it->test, p.kept_by,
                          "all " + std::to_string(p.pairs) + " of its changed-symbol contexts are exercised by " + by,
                          cost[i].seconds});
  }
  if (options.order_by_risk) {
    auto order = order_by_risk(risks, gpu_seconds);
    // A known-failing or flaky test's failure says nothing about the change: its lane runs last.
    std::stable_partition(order.begin(), order.end(), [&](std::size_t i) {
      return out.ordered[i].failure_class.kind == FailureClass::none;
    });
    std::vector<PlanEntry> sorted;
    sorted.reserve(order.size());
    for (auto i : order) sorted.push_back(std::move(out.ordered[i]));
    out.ordered = std::move(sorted);
  }

  // The budget keeps the most valuable prefix whose schedule fits.
  if (options.budget_seconds > 0) {
    std::vector<ScheduledJob> fitted;
    std::vector<PlanEntry> within;
    for (auto& e : out.ordered) {
      fitted.push_back({e.selected.test.id, e.gpus, e.predicted_seconds});
      if (schedule_ranked(fitted, options.cluster_gpus).makespan_seconds <= options.budget_seconds) {
        within.push_back(std::move(e));
      } else {
        fitted.pop_back();
        out.over_budget.push_back({e.selected.test, "left out by the time budget (risk " +
                                                        std::to_string(e.risk).substr(0, 5) + ")"});
      }
    }
    out.ordered = std::move(within);
  }

  std::vector<ScheduledJob> plan_jobs, all_jobs;
  for (const auto& e : out.ordered) plan_jobs.push_back({e.selected.test.id, e.gpus, e.predicted_seconds});
  for (const auto& e : out.ordered) all_jobs.push_back({e.selected.test.id, e.full_gpus, e.full_seconds});
  for (const auto& p : out.pruned) all_jobs.push_back({p.test.id, std::max(p.test.gpus, 1), p.predicted_seconds});
  all_jobs.insert(all_jobs.end(), all_quarantined.begin(), all_quarantined.end());
  for (const auto& b : out.over_budget) {
    auto c = cost_of(b.test, evidence_of(b.test.id), costs, options.default_test_seconds);
    all_jobs.push_back({b.test.id, std::max(c.gpus, 1), c.seconds});
  }
  for (const auto& s : skipped) {
    auto c = cost_of(s.test, nullptr, costs, options.default_test_seconds);
    all_jobs.push_back({s.test.id, std::max(c.gpus, 1), c.seconds});
  }
  auto plan_schedule = schedule_ranked(plan_jobs, options.cluster_gpus);
  auto all_schedule = schedule_ranked(all_jobs, options.cluster_gpus);
  out.prediction = {options.cluster_gpus, plan_schedule.makespan_seconds, plan_schedule.gpu_seconds / 3600,
                    all_schedule.makespan_seconds, all_schedule.gpu_seconds / 3600};
  return out;
}

}  // namespace fastci::planner
