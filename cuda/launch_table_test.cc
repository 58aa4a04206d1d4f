#include "cuda/launch_table.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>
#include <vector>

namespace fastci::cuda {
namespace {

LaunchKey key(std::uint32_t test, std::uint32_t kernel, unsigned grid_x, std::uint64_t shared_memory = 0) {
  return LaunchKey{test, kernel, abi::Dim3{grid_x, 1, 1}, abi::Dim3{128, 1, 1}, shared_memory};
}

TEST(CudaLaunchTable, CountsDistinctConfigurationsApart) {
  LaunchTable table;
  table.add(key(0, 1, 4));
  table.add(key(0, 1, 4));
  table.add(key(0, 1, 8));
  table.add(key(1, 1, 4));
  table.add(key(0, 1, 4, 256));
  table.add(key(0, 2, 4), 1, 3.5);
  std::map<std::tuple<std::uint32_t, std::uint32_t, unsigned, std::uint64_t>, LaunchTotals> totals;
  for (const auto& [k, t] : table.snapshot()) totals[{k.test, k.kernel, k.grid.x, k.shared_memory}] = t;
  ASSERT_EQ(totals.size(), 5u);
  EXPECT_EQ((totals[{0, 1, 4, 0}].count), 2u);
  EXPECT_EQ((totals[{0, 1, 8, 0}].count), 1u);
  EXPECT_EQ((totals[{1, 1, 4, 0}].count), 1u);
  EXPECT_EQ((totals[{0, 1, 4, 256}].count), 1u);
  EXPECT_DOUBLE_EQ((totals[{0, 2, 4, 0}].duration_us), 3.5);
}

TEST(CudaLaunchTable, ThreadsCountWithoutLosingLaunchesWhileSnapshotsRun) {
  LaunchTable table;
  constexpr int kThreads = 8;
  constexpr int kLaunches = 50'000;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) table.snapshot();
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&table, t] {
      for (int i = 0; i < kLaunches; ++i) table.add(key(static_cast<std::uint32_t>(i % 3), 7, 1 + (t % 2)));
    });
  }
  for (auto& thread : threads) thread.join();
  done = true;
  reader.join();
  EXPECT_EQ(table.total(), static_cast<std::uint64_t>(kThreads) * kLaunches);
  EXPECT_EQ(table.snapshot().size(), 6u);  // 3 tests x 2 grids, merged across threads
}

TEST(CudaLaunchTable, SeparateTablesDoNotShareCounts) {
  LaunchTable first;
  LaunchTable second;
  first.add(key(0, 0, 1));
  second.add(key(0, 0, 1));
  second.add(key(0, 0, 1));
  EXPECT_EQ(first.total(), 1u);
  EXPECT_EQ(second.total(), 2u);
}

}  // namespace
}  // namespace fastci::cuda
