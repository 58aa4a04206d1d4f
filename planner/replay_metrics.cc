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
  auto schedule = schedule_in_order(jobs, cluster_gpus);
  m.latency_seconds = schedule.makespan_seconds;
  m.gpu_hours = schedule.gpu_seconds / 3600.0;

  double total_cost = 0;
  for (const auto* r : ran) total_cost += r->seconds;
  double position_area = 0, cost_area = 0;
  const double n = static_cast<double>(ran.size());
  for (std::size_t i = 0; i < ran.size(); ++i) {
    if (!ran[i]->failed()) continue;
    ++m.failures_caught;
    double end = schedule.jobs[i].end;
    if (!m.time_to_first_failure || end < *m.time_to_first_failure) m.time_to_first_failure = end;
    position_area += n - static_cast<double>(i + 1) + 0.5;
    // Cost from the detecting test to the end of the order, counting the detecting test by half.
    double remaining = 0;
    for (std::size_t j = i; j < ran.size(); ++j) remaining += ran[j]->seconds;
    cost_area += remaining - ran[i]->seconds / 2;
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
