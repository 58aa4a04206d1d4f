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

/// The schedule of `jobs` with EASY backfilling; with `deadlines`, a job whose deadline comes
/// before the scheduler's next decision jumps the rank order (earliest deadline first).
ScheduleResult easy_backfill(std::vector<ScheduledJob> jobs, int cluster_gpus,
                             const std::vector<double>* deadlines) {
  ScheduleResult result;
  std::vector<int> width(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) width[i] = std::clamp(jobs[i].gpus, 1, cluster_gpus);
  std::vector<std::size_t> waiting(jobs.size());  // rank order
  std::iota(waiting.begin(), waiting.end(), 0);
  std::vector<Running> running;
  std::vector<bool> started(jobs.size(), false);
  int free = cluster_gpus;
  double now = 0;
  auto start = [&](std::size_t i) {
    started[i] = true;
    jobs[i].start = now;
    jobs[i].end = now + jobs[i].seconds;
    running.push_back({jobs[i].end, width[i]});
    free -= width[i];
    result.start_order.push_back(i);
    result.makespan_seconds = std::max(result.makespan_seconds, jobs[i].end);
    result.gpu_seconds += width[i] * jobs[i].seconds;
  };
  while (!waiting.empty()) {
    std::vector<std::size_t> queue = waiting;
    if (deadlines) {
      // The next decision comes at the latest when a running job ends: a job that must start
      // before then starts now (with none running, only a job already due).
      double next = now;
      if (!running.empty()) {
        next = std::numeric_limits<double>::infinity();
        for (const auto& r : running) next = std::min(next, r.end);
      }
      auto urgent_end = std::stable_partition(queue.begin(), queue.end(),
                                              [&](std::size_t i) { return (*deadlines)[i] <= next; });
      std::stable_sort(queue.begin(), urgent_end,
                       [&](std::size_t a, std::size_t b) { return (*deadlines)[a] < (*deadlines)[b]; });
    }
    // Start the head while it fits; then backfill around its reservation.
    std::size_t head = 0;
    while (head < queue.size() && width[queue[head]] <= free) start(queue[head++]);
    if (head < queue.size()) {
      auto [reserved_at, spare] = reservation(running, free, width[queue[head]]);
      for (std::size_t k = head + 1; k < queue.size() && free > 0; ++k) {
        std::size_t i = queue[k];
        bool ends_in_time = now + jobs[i].seconds <= reserved_at;
        if (width[i] <= free && (ends_in_time || width[i] <= spare)) {
          if (!ends_in_time) spare -= width[i];
          start(i);
        }
      }
    }
    std::erase_if(waiting, [&](std::size_t i) { return started[i]; });
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
  // Jobs that start at the same instant start together; the runner hands them out in rank order,
  // so that is their order (a job that jumped the rank order for latency does not count as earlier).
  std::stable_sort(result.start_order.begin(), result.start_order.end(), [&](std::size_t a, std::size_t b) {
    if (jobs[a].start != jobs[b].start) return jobs[a].start < jobs[b].start;
    return a < b;
  });
  result.jobs = std::move(jobs);
  return result;
}

}  // namespace

ScheduleResult schedule_ranked(std::vector<ScheduledJob> jobs, int cluster_gpus) {
  cluster_gpus = std::max(cluster_gpus, 1);
  // The makespan a load-balancing order reaches (longest first, same backfilling) bounds what the
  // rank order may cost: each job's deadline is the latest start that still ends by it.
  std::vector<ScheduledJob> longest_first = jobs;
  std::stable_sort(longest_first.begin(), longest_first.end(),
                   [](const ScheduledJob& a, const ScheduledJob& b) { return a.seconds > b.seconds; });
  double bound = easy_backfill(std::move(longest_first), cluster_gpus, nullptr).makespan_seconds;
  std::vector<double> deadlines;
  for (const auto& j : jobs) deadlines.push_back(bound - j.seconds);
  return easy_backfill(std::move(jobs), cluster_gpus, &deadlines);
}

}  // namespace fastci::planner
