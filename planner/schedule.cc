#include "planner/schedule.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace fastci::planner {
namespace {

struct Running {
  double end;
  int width;
};

/// When the `width` GPUs a waiting job needs are free, and how many GPUs are free then beyond it.
std::pair<double, int> reservation(std::vector<Running> running, int free, int width) {
  std::sort(running.begin(), running.end(), [](const Running& a, const Running& b) { return a.end < b.end; });
  double at = 0;
  for (const auto& r : running) {
    if (free >= width) break;
    free += r.width;
    at = r.end;
  }
  return {at, free - width};
}

}  // namespace

ScheduleResult schedule_ranked(std::vector<ScheduledJob> jobs, int cluster_gpus) {
  cluster_gpus = std::max(cluster_gpus, 1);
  ScheduleResult result;
  std::vector<int> width(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) width[i] = std::clamp(jobs[i].gpus, 1, cluster_gpus);
  std::vector<std::size_t> waiting(jobs.size());  // rank order
  std::iota(waiting.begin(), waiting.end(), 0);
  std::vector<Running> running;
  int free = cluster_gpus;
  double now = 0;
  auto start = [&](std::size_t i) {
    jobs[i].start = now;
    jobs[i].end = now + jobs[i].seconds;
    running.push_back({jobs[i].end, width[i]});
    free -= width[i];
    result.start_order.push_back(i);
    result.makespan_seconds = std::max(result.makespan_seconds, jobs[i].end);
    result.gpu_seconds += width[i] * jobs[i].seconds;
  };
  while (!waiting.empty()) {
    // Start the head while it fits; then backfill around its reservation.
    while (!waiting.empty() && width[waiting.front()] <= free) {
      start(waiting.front());
      waiting.erase(waiting.begin());
    }
    if (!waiting.empty()) {
      auto [reserved_at, spare] = reservation(running, free, width[waiting.front()]);
      for (auto it = waiting.begin() + 1; it != waiting.end() && free > 0;) {
        std::size_t i = *it;
        bool ends_in_time = now + jobs[i].seconds <= reserved_at;
        if (width[i] <= free && (ends_in_time || width[i] <= spare)) {
          if (!ends_in_time) spare -= width[i];
          start(i);
          it = waiting.erase(it);
        } else {
          ++it;
        }
      }
    }
    if (waiting.empty()) break;
    // Advance to the next end of a running job and free what ends then.
    double next = std::numeric_limits<double>::infinity();
    for (const auto& r : running) next = std::min(next, r.end);
    now = next;
    for (auto it = running.begin(); it != running.end();) {
      if (it->end <= now) {
        free += it->width;
        it = running.erase(it);
      } else {
        ++it;
      }
    }
  }
  result.jobs = std::move(jobs);
  return result;
}

}  // namespace fastci::planner
