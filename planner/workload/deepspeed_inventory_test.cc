#include "planner/workload/deepspeed_inventory.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "planner/workload/propose.h"

namespace fastci::planner::workload {
namespace {

TEST(DeepSpeedInventory, WorldSizesBecomeKnobsAndListsAreInScope) {
  const std::string path = std::string(FASTCI_SHARED_DIR) + "/data/deepspeed/v0.14.2-unit-nodeids.jsonl";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no DeepSpeed inventory at " << path;
  const std::string dir = FASTCI_WORKLOAD_DATA_DIR;
  auto catalogue = Catalogue::load(dir + "/knobs.toml");
  auto constraints = Constraints::load(dir + "/constraints.toml");
  ASSERT_TRUE(catalogue.ok() && constraints.ok());
  auto tests = read_deepspeed_inventory(path, *catalogue);
  ASSERT_TRUE(tests.ok()) << tests.error().to_string();
  EXPECT_EQ(tests->size(), 1450u);  // 1,449 ids, one of them runs at world sizes 1 and 4
  int resized = 0;
  for (const TestWorkload& test : *tests) {
    if (test.id != "unit/model_parallelism/test_configurable_parallel_mp.py::TestConfigurableResizeMP::test") continue;
    ++resized;
    EXPECT_TRUE(test.varied_scope.count("world_size"));
    auto proposal = propose(test, *catalogue, *constraints, {}, ValidationMode::exact);
    EXPECT_TRUE(proposal.decision("world_size")->in_scope);
    EXPECT_FALSE(proposal.decision("world_size")->changed());
  }
  EXPECT_EQ(resized, 2);
  // Without recorded runs at other sizes, no DeepSpeed test shrinks and none breaks a rule.
  for (const TestWorkload& test : *tests) {
    auto proposal = propose(test, *catalogue, *constraints, {}, ValidationMode::exact);
    EXPECT_TRUE(proposal.overrides.empty()) << test.id;
    EXPECT_TRUE(proposal.all_constraints_pass()) << test.id;
  }
}

TEST(DeepSpeedInventory, BadLineNamesFileAndLine) {
  const std::string path = std::string(FASTCI_SOURCE_DIR) + "/tests/fixtures/workload/deepspeed-bad-nodeids.jsonl";
  auto catalogue = Catalogue::load(std::string(FASTCI_WORKLOAD_DATA_DIR) + "/knobs.toml");
  auto tests = read_deepspeed_inventory(path, *catalogue);
  ASSERT_FALSE(tests.ok());
  EXPECT_EQ(tests.error().file, path);
  EXPECT_EQ(tests.error().line, 2);
}

}  // namespace
}  // namespace fastci::planner::workload
