#include <gtest/gtest.h>

#include "planner/schedule.h"

namespace fastci::planner {
namespace {

TEST(Schedule, SingleGpuJobsFillTheCluster) {
  auto r = schedule_ranked({{"a", 1, 10}, {"b", 1, 10}, {"c", 1, 10}, {"d", 1, 10}, {"e", 1, 5}}, 4);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 15);
  EXPECT_DOUBLE_EQ(r.gpu_seconds, 45);
  EXPECT_DOUBLE_EQ(r.jobs[4].start, 10);
  EXPECT_EQ(r.start_order, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

TEST(Schedule, BackfillsAroundAWideJobWithoutDelayingIt) {
  // Hand-computed on 4 GPUs. t=0: a takes 2 GPUs; `wide` needs 4, so it is reserved for t=10 (when
  // a ends) with no GPU to spare. b (1 GPU, ends at 5) and d (ends at 3) fit before the
  // reservation and start at 0; c (1 GPU, 15 s) would still hold its GPU at 10 and waits. wide runs
  // 10-30, c 30-45. In strict order b, c and d would all wait for wide (start 30).
  auto r = schedule_ranked({{"a", 2, 10}, {"wide", 4, 20}, {"b", 1, 5}, {"c", 1, 15}, {"d", 1, 3}}, 4);
  EXPECT_DOUBLE_EQ(r.jobs[0].start, 0);
  EXPECT_DOUBLE_EQ(r.jobs[1].start, 10);
  EXPECT_DOUBLE_EQ(r.jobs[2].start, 0);
  EXPECT_DOUBLE_EQ(r.jobs[3].start, 30);
  EXPECT_DOUBLE_EQ(r.jobs[4].start, 0);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 45);
  EXPECT_DOUBLE_EQ(r.gpu_seconds, 20 + 80 + 5 + 15 + 3);
  EXPECT_EQ(r.start_order, (std::vector<std::size_t>{0, 2, 4, 1, 3}));
}

TEST(Schedule, BackfillsOnGpusTheReservationDoesNotNeed) {
  // 4 GPUs: a holds 2 until 10; w needs 3, reserved at 10 when 4 are free, so 1 GPU is spare then
  // and b may hold it past the reservation.
  auto r = schedule_ranked({{"a", 2, 10}, {"w", 3, 5}, {"b", 1, 14}}, 4);
  EXPECT_DOUBLE_EQ(r.jobs[2].start, 0);
  EXPECT_DOUBLE_EQ(r.jobs[1].start, 10);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 15);
  EXPECT_EQ(r.start_order, (std::vector<std::size_t>{0, 2, 1}));
}

TEST(Schedule, ALongLowRankedJobStartsWhenWaitingWouldCostLatency) {
  // 2 GPUs, four 1 s jobs ranked before a 4 s one. Longest first ends at 4 (L 0-4 beside a, b, c,
  // d one after another), so L must start at 0; in plain rank order it would start at 2, ending 6.
  auto r = schedule_ranked({{"a", 1, 1}, {"b", 1, 1}, {"c", 1, 1}, {"d", 1, 1}, {"L", 1, 4}}, 2);
  EXPECT_DOUBLE_EQ(r.jobs[4].start, 0);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 4);
  // L and a start together at 0: the start order lists them in rank order.
  EXPECT_EQ(r.start_order, (std::vector<std::size_t>{0, 4, 1, 2, 3}));
}

TEST(Schedule, CpuJobsTakeASlotAndOversizedJobsAreClamped) {
  auto r = schedule_ranked({{"cpu", 0, 3}, {"huge", 16, 2}}, 8);
  EXPECT_DOUBLE_EQ(r.jobs[1].start, 3);
  EXPECT_DOUBLE_EQ(r.gpu_seconds, 3 + 16);
}

}  // namespace
}  // namespace fastci::planner
