#pragma once
/// A list scheduler for a CI cluster of G GPUs: predicts latency and GPU-hours of a plan.

#include <string>
#include <vector>

namespace fastci::planner {

/// A job to place: a test with its GPU count and predicted duration.
struct ScheduledJob {
  std::string test_id;
  int gpus = 1;          ///< 0 (CPU-only) occupies one runner slot like a 1-GPU job
  double seconds = 0;
  double start = 0, end = 0;  ///< filled by schedule_in_order
};

/// The schedule of a whole plan.
struct ScheduleResult {
  std::vector<ScheduledJob> jobs;  ///< in plan order, with start and end
  double makespan_seconds = 0;     ///< CI latency
  double gpu_seconds = 0;          ///< GPUs held x seconds
};

/// Places jobs in plan order (no job starts before the one listed before it); a multi-GPU job
/// needs all its GPUs at once. A job wider than the cluster is clamped to the cluster.
ScheduleResult schedule_in_order(std::vector<ScheduledJob> jobs, int cluster_gpus);

}  // namespace fastci::planner
