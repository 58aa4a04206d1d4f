#include "planner/workload/scope.h"

#include <gtest/gtest.h>

namespace fastci::planner::workload {
namespace {

const Catalogue& catalogue() {
  static const Catalogue loaded = *Catalogue::load(std::string(FASTCI_WORKLOAD_DATA_DIR) + "/knobs.toml");
  return loaded;
}

TestWorkload workload(const std::string& id, std::vector<std::pair<std::string, std::string>> knobs) {
  TestWorkload test;
  test.id = id;
  for (auto& [raw, value] : knobs) test.knobs.push_back({catalogue().canonical(raw).value_or(raw), raw, value, frontend::KnobOrigin::keyword_argument, "", 0});
  return test;
}

TEST(Scope, NamedInConfigFolder) {
  auto scope = detect_scope(workload("moe/gpt3_mcore_tp2_cp2_pp2_ep2_te_4experts2parallel", {}), catalogue());
  for (const char* knob : {"tp", "cp", "pp", "ep", "experts"}) {
    ASSERT_TRUE(scope.count(knob)) << knob;
    EXPECT_NE(scope.at(knob).find("named in the test id"), std::string::npos);
  }
  EXPECT_FALSE(scope.count("layers"));
  EXPECT_FALSE(scope.count("train_iters"));
  // The family folder ("moe/") is not part of what the case names.
  EXPECT_FALSE(detect_scope(workload("moe/gpt3_mcore_tp1_pp1", {}), catalogue()).count("experts"));
}

TEST(Scope, DeclaredAssertedAndVariedKnobs) {
  TestWorkload test = workload("unit/test_x.py::test_y[2]", {});
  test.declared_scope = {"hidden"};
  test.asserted_scope = {"seq_length"};
  test.varied_scope = {"world_size"};
  auto scope = detect_scope(test, catalogue());
  EXPECT_EQ(scope.at("hidden"), "in scope: declared for the test");
  EXPECT_EQ(scope.at("seq_length"), "in scope: its assertions depend on it");
  EXPECT_EQ(scope.at("world_size"), "in scope: varied across the test's family");
}

TEST(Scope, FamilyVariesOnlyKnobsThatDifferAlone) {
  std::vector<TestWorkload> family = {
      workload("gpt/a", {{"--num-layers", "12"}, {"--seq-length", "1024"}, {"--lr", "1e-4"}}),
      workload("gpt/b", {{"--num-layers", "12"}, {"--seq-length", "2048"}, {"--lr", "1e-4"}}),
      workload("gpt/c", {{"--num-layers", "24"}, {"--seq-length", "4096"}, {"--lr", "1e-4"}}),
      workload("gpt/d", {{"--num-layers", "12"}, {"--seq-length", "1024"}, {"--lr", "3e-4"}}),
  };
  auto varied = varied_knobs(family, catalogue());
  EXPECT_EQ(varied["gpt/a"], (std::set<std::string>{"seq_length"}));
  EXPECT_EQ(varied["gpt/b"], (std::set<std::string>{"seq_length"}));
  EXPECT_FALSE(varied.count("gpt/c"));  // differs from every sibling in two knobs
  EXPECT_FALSE(varied.count("gpt/d"));  // --lr is not a workload knob
}

}  // namespace
}  // namespace fastci::planner::workload
