#include "planner/shrink.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace fastci::planner {
namespace {

namespace fs = std::filesystem;
using evidence::Outcome;

/// A store holding passing runs of one distributed test at world_size 2 and 1.
class Shrink : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("fastci_shrink_" + std::to_string(::getpid()) + ".db");
    fs::remove(path_);
    auto store = evidence::Store::open("sqlite://" + path_.string());
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    store_ = std::move(*store);
  }
  void TearDown() override { fs::remove(path_); }

  void run(int gpus, double seconds, std::vector<std::string> kernels) {
    auto result = store_->ingest(
        [&](evidence::EvidenceSink& sink) {
          sink.begin_run(evidence::Run{"c0", "2026-12-01T10:00:00Z", "ci", "{}", "test", ""});
          evidence::TestEvidence t;
          t.test_id = kTest;
          t.outcome = Outcome::passed;
          t.duration_seconds = seconds;
          t.gpus = gpus;
          t.coverage.push_back({"pkg/comm.py", {{1, 4}}, {}});
          evidence::ExecutionContext c;
          c.function = "pkg/comm.py::all_reduce";
          c.arguments = "values:list";
          t.contexts.push_back(c);
          for (auto& name : kernels) {
            evidence::KernelLaunch k;
            k.name = name;
            t.kernels.push_back(k);
          }
          sink.add_test(std::move(t));
          return util::Status{};
        },
        "test", "runs");
    ASSERT_TRUE(result.ok()) << result.error().to_string();
  }

  util::Result<std::map<std::string, ShrinkDecision>> decide() {
    frontend::Test t{kTest, "py:tests.test_comm.TestReduce.test_reduce", "tests/test_comm.py", 5, {}, {}, 2, {}};
    return decide_shrinks({t}, *store_, {"pkg/comm.py::all_reduce"});
  }

  static constexpr const char* kTest = "tests/test_comm.py::TestReduce::test_reduce";
  fs::path path_;
  std::unique_ptr<evidence::Store> store_;
};

TEST_F(Shrink, CpuRunsShrinkAndSayTheyRecordedNoKernels) {
  run(2, 20, {});
  run(1, 8, {});
  auto decided = decide();
  ASSERT_TRUE(decided.ok()) << decided.error().to_string();
  ASSERT_EQ(decided->count(kTest), 1u);
  const auto& d = decided->at(kTest);
  EXPECT_EQ(d.gpus, 1);
  EXPECT_EQ(d.original_gpus, 2);
  EXPECT_DOUBLE_EQ(d.seconds, 8);
  EXPECT_DOUBLE_EQ(d.original_seconds, 20);
  EXPECT_NE(d.reason.find("no kernel launches recorded at either size"), std::string::npos) << d.reason;
  EXPECT_EQ(d.reason.find("and kernels"), std::string::npos) << d.reason;
}

TEST_F(Shrink, TheSameKernelsAtBothSizesShrink) {
  run(2, 20, {"void ds_all_reduce<float>(float*, int)", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"});
  run(1, 8, {"void ds_all_reduce<float>(float*, int)", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"});
  auto decided = decide();
  ASSERT_TRUE(decided.ok()) << decided.error().to_string();
  ASSERT_EQ(decided->count(kTest), 1u);
  EXPECT_NE(decided->at(kTest).reason.find("contexts and kernels"), std::string::npos) << decided->at(kTest).reason;
}

TEST_F(Shrink, AnotherKernelSetAtTheSmallerSizeKeepsTheSize) {
  // At one rank the collective is skipped: the NCCL kernel is never launched.
  run(2, 20, {"void ds_all_reduce<float>(float*, int)", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"});
  run(1, 8, {"void ds_all_reduce<float>(float*, int)"});
  auto decided = decide();
  ASSERT_TRUE(decided.ok()) << decided.error().to_string();
  EXPECT_EQ(decided->count(kTest), 0u) << "kernel sets were not compared";
}

}  // namespace
}  // namespace fastci::planner
