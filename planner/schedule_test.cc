#include <gtest/gtest.h>

#include "planner/schedule.h"

namespace fastci::planner {
namespace {

TEST(Schedule, SingleGpuJobsFillTheCluster) {
  auto r = schedule_in_order({{"a", 1, 10}, {"b", 1, 10}, {"c", 1, 10}, {"d", 1, 10}, {"e", 1, 5}}, 4);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 15);
  EXPECT_DOUBLE_EQ(r.gpu_seconds, 45);
  EXPECT_DOUBLE_EQ(r.jobs[4].start, 10);
}

TEST(Schedule, WideJobWaitsForAllItsGpusAndKeepsOrder) {
  // The 4-GPU job must wait for the 1-GPU job; the job after it may not start earlier.
  auto r = schedule_in_order({{"a", 1, 10}, {"wide", 4, 20}, {"b", 1, 1}}, 4);
  EXPECT_DOUBLE_EQ(r.jobs[1].start, 10);
  EXPECT_DOUBLE_EQ(r.jobs[2].start, 30);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 31);
  EXPECT_DOUBLE_EQ(r.gpu_seconds, 10 + 80 + 1);
}

TEST(Schedule, CpuJobsTakeASlotAndOversizedJobsAreClamped) {
  auto r = schedule_in_order({{"cpu", 0, 3}, {"huge", 16, 2}}, 8);
  EXPECT_DOUBLE_EQ(r.jobs[1].start, 3);
  EXPECT_DOUBLE_EQ(r.gpu_seconds, 3 + 16);
}

}  // namespace
}  // namespace fastci::planner
