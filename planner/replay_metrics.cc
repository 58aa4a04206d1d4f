#include "planner/replay_metrics.h"

#include <map>

#include "planner/schedule.h"

namespace fastci::planner {

RunMetrics measure_order(const std::vector<std::string>& order, const std::vector<RecordedResult>& recorded,
                         int cluster_gpus) {
  std::map<std::string, const RecordedResult*> by_id;
  for (const auto& r : recorded) by_id[r.test_id] = &r;
  RunMetrics m;
  m.tests_total = recorded.size();
  for (const auto& r : recorded) m.failures_present += r.failed() ? 1 : 0;

  std::vector<ScheduledJob> jobs;
  std::vector<const RecordedResult*> ran;
  for (const auto& id : order) {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      ++m.unknown_tests;
      continue;
    }
    jobs.push_back({id, it->second->gpus, it->second->seconds});
    ran.push_back(it->second);
  }
  m.tests_run = ran.size();
  auto schedule = schedule_ranked(jobs, cluster_gpus);
  m.latency_seconds = schedule.makespan_seconds;
  m.gpu_hours = schedule.gpu_seconds / 3600.0;

  // Positions and costs are those of the order the schedule starts tests in: with backfilling a
  // lower-ranked test may start before a higher-ranked one that waits for GPUs.
  std::vector<const RecordedResult*> started;
  for (auto i : schedule.start_order) started.push_back(ran[i]);
  double total_cost = 0;
  for (const auto* r : started) total_cost += r->seconds;
  double position_area = 0, cost_area = 0;
  const double n = static_cast<double>(started.size());
  for (std::size_t k = 0; k < started.size(); ++k) {
    if (!started[k]->failed()) continue;
    ++m.failures_caught;
    double end = schedule.jobs[schedule.start_order[k]].end;
    if (!m.time_to_first_failure || end < *m.time_to_first_failure) m.time_to_first_failure = end;
    position_area += n - static_cast<double>(k + 1) + 0.5;
    // Cost from the detecting test to the end of the order, counting the detecting test by half.
    double remaining = 0;
    for (std::size_t j = k; j < started.size(); ++j) remaining += started[j]->seconds;
    cost_area += remaining - started[k]->seconds / 2;
  }
  if (m.failures_present > 0 && n > 0) {
    const double faults = m.failures_present;
    m.apfd = position_area / (n * faults);
    m.apfd_cost = total_cost > 0 ? cost_area / (total_cost * faults) : 0.0;
  } else if (m.failures_present > 0) {
    m.apfd = 0.0;
    m.apfd_cost = 0.0;
  }
  return m;
}

}  // namespace fastci::planner
