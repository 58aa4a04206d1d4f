#pragma once
/// The CI cluster's scheduler: places a ranked plan on G GPUs with backfilling, so that a test too
/// wide for the GPUs free now does not idle them (predicts latency and GPU-hours of a plan, and the
/// order in which tests start, which replay scores APFD on).

#include <cstddef>
#include <string>
#include <vector>

namespace fastci::planner {

/// A job to place: a test with its GPU count and predicted duration.
struct ScheduledJob {
  std::string test_id;
  int gpus = 1;          ///< 0 (CPU-only) occupies one runner slot like a 1-GPU job
  double seconds = 0;
  double start = 0, end = 0;  ///< filled by schedule_ranked
};

/// The schedule of a whole plan.
struct ScheduleResult {
  std::vector<ScheduledJob> jobs;      ///< in rank (plan) order, with start and end
  std::vector<std::size_t> start_order;  ///< indices into jobs by start time; jobs starting together in rank order
  double makespan_seconds = 0;         ///< CI latency
  double gpu_seconds = 0;              ///< GPUs held x seconds
};

/// Places jobs in rank order with EASY backfilling (Lifka 1995): whenever GPUs free up, the
/// highest-ranked waiting job that fits starts; when the highest-ranked waiting job does not fit,
/// it gets a reservation at the earliest time enough GPUs are free, and lower-ranked jobs that fit
/// now start in rank order as long as they do not delay that reservation (they end before it, or
/// use GPUs it does not need). The rank order may not cost latency beyond what a load-balancing
/// order reaches: with M the makespan of the same jobs longest first, a job whose latest start to
/// end by M comes before the scheduler's next decision starts first (earliest such deadline first).
/// A multi-GPU job needs all its GPUs at once; a job wider than the cluster is clamped to it.
ScheduleResult schedule_ranked(std::vector<ScheduledJob> jobs, int cluster_gpus);

}  // namespace fastci::planner
