#pragma once
/// What one CI run of a test order costs and finds, on a simulated cluster: latency, GPU-hours,
/// failures caught, time to first failure, APFD and cost-aware APFD.

#include <optional>
#include <string>
#include <vector>

namespace fastci::planner {

/// One test as a commit's recorded run saw it.
struct RecordedResult {
  std::string test_id;
  std::string outcome;  ///< passed, failed, error, skipped, ...
  double seconds = 0;
  int gpus = 1;
  bool failed() const { return outcome == "failed" || outcome == "error"; }
};

/// What running `order` (test ids, in that order) on the cluster costs and finds.
struct RunMetrics {
  std::size_t tests_run = 0;
  std::size_t tests_total = 0;      ///< tests the recorded run-all ran
  std::size_t unknown_tests = 0;    ///< ids in the order without a recorded result (not simulated)
  double latency_seconds = 0;
  double gpu_hours = 0;
  int failures_present = 0;         ///< failing tests in the recorded run-all
  int failures_caught = 0;          ///< of those, in the order
  std::optional<double> time_to_first_failure;  ///< end of the first failing test; none if none ran
  /// Average percentage of faults detected (Rothermel): 1 - sum(TF)/(n m) + 1/(2n) over the n tests
  /// of the order the schedule starts, written sum(n - TF + 1/2)/(n m) so that a fault the order misses adds 0 (as in
  /// the cost-aware form). Each failing test is one fault. None without failures.
  std::optional<double> apfd;
  /// Cost-aware APFD (Elbaum, Malishevsky, Rothermel), unit severities, durations as costs; a
  /// missed fault contributes nothing. None without failures.
  std::optional<double> apfd_cost;
};

/// Simulates `order` on `cluster_gpus` GPUs (schedule_ranked: rank order with backfilling; a
/// multi-GPU test needs all its GPUs at once) with the recorded durations, and scores the order in
/// which the schedule starts the tests against the recorded failures.
RunMetrics measure_order(const std::vector<std::string>& order, const std::vector<RecordedResult>& recorded,
                         int cluster_gpus);

}  // namespace fastci::planner
