#include "planner/replay_scale.h"

#include <gtest/gtest.h>

namespace fastci::planner {
namespace {

const std::filesystem::path kData = std::filesystem::path(FASTCI_SHARED_DIR) / "data/pytorch-ci";

// Expected numbers counted independently with Python's json module over the same two files.
TEST(PytorchScale, ReadsPytorchsOwnStatistics) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << kData << " is not here";
  auto data = load_pytorch_ci(kData);
  ASSERT_TRUE(data.ok()) << data.error().to_string();
  EXPECT_EQ(data->tests_of_source.size(), 1483u);
  EXPECT_EQ(data->map_pairs, 53545u);
  EXPECT_EQ(data->test_times.size(), 46u);
  // default/default: 999 keys, 998 after dropping the runner path prefix of one duplicate.
  EXPECT_EQ(data->test_times.at("default").at("default").size(), 998u);
}

TEST(PytorchScale, SingleFileChangesRunFarLessThanTheJob) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << kData << " is not here";
  auto data = load_pytorch_ci(kData);
  ASSERT_TRUE(data.ok());
  auto r = simulate_pytorch_ci(*data, "default", "default", 64);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->test_files, 998u);
  EXPECT_EQ(r->unmapped_test_files, 665u);  // test files no profiled pair names
  EXPECT_EQ(r->changes, 1483u);
  EXPECT_NEAR(r->all_gpu_hours, 113137.5646 / 3600, 1e-3);  // one GPU slot per test file
  EXPECT_LT(r->coverage_only.mean_gpu_hours, r->with_unknowns.mean_gpu_hours);
  EXPECT_LT(r->with_unknowns.mean_gpu_hours, r->all_gpu_hours);
  EXPECT_LE(r->with_unknowns.median_latency_seconds, r->all_latency_seconds);
  EXPECT_FALSE(simulate_pytorch_ci(*data, "no-such-job", "default", 8).ok());
}

}  // namespace
}  // namespace fastci::planner
