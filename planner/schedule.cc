#include "planner/schedule.h"

#include <algorithm>

namespace fastci::planner {

ScheduleResult schedule_in_order(std::vector<ScheduledJob> jobs, int cluster_gpus) {
  cluster_gpus = std::max(cluster_gpus, 1);
  std::vector<double> free_at(static_cast<std::size_t>(cluster_gpus), 0.0);
  ScheduleResult result;
  double previous_start = 0;
  for (auto& job : jobs) {
    int width = std::clamp(job.gpus, 1, cluster_gpus);
    std::sort(free_at.begin(), free_at.end());
    // The `width` GPUs that free up first; the job starts when the last of them is free.
    double start = std::max(free_at[static_cast<std::size_t>(width - 1)], previous_start);
    for (int g = 0; g < width; ++g) free_at[static_cast<std::size_t>(g)] = start + job.seconds;
    job.start = start;
    job.end = start + job.seconds;
    previous_start = start;
    result.makespan_seconds = std::max(result.makespan_seconds, job.end);
    result.gpu_seconds += width * job.seconds;
  }
  result.jobs = std::move(jobs);
  return result;
}

}  // namespace fastci::planner
