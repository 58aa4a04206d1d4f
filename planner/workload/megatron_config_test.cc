#include "planner/workload/megatron_config.h"

#include <gtest/gtest.h>

#include "planner/workload/megatron_plan.h"

namespace fastci::planner::workload {
namespace {

const std::string kFixtures = std::string(FASTCI_SOURCE_DIR) + "/tests/fixtures/workload/megatron";

const WorkloadData& data() {
  static const WorkloadData loaded = [] {
    auto result = load_workload_data(FASTCI_WORKLOAD_DATA_DIR);
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().to_string());
    return std::move(*result);
  }();
  return loaded;
}

const Knob* knob(const TestWorkload& test, const std::string& name) {
  for (const Knob& item : test.knobs)
    if (item.name == name) return &item;
  return nullptr;
}

TEST(MegatronConfig, ReadsRecipesForGpusAndRepeats) {
  auto recipes = RecipeIndex::load(kFixtures + "/recipes", 8);
  ASSERT_TRUE(recipes.ok()) << recipes.error().to_string();
  const RecipeEntry* gpt = recipes->find("gpt", "tiny_tp2_pp2");
  ASSERT_NE(gpt, nullptr);
  EXPECT_EQ(gpt->nodes * gpt->gpus_per_node, 8);  // no GPUS_PER_NODE in the script: the runner default
  EXPECT_EQ(gpt->repeats, 5);
  EXPECT_EQ(recipes->find("gpt", "tiny_resume_merge")->repeats, 2);  // product-level n_repeat
  const RecipeEntry* moe = recipes->find("moe", "tiny_moe_pattern");
  ASSERT_NE(moe, nullptr);
  EXPECT_EQ(moe->gpus_per_node, 4);  // GPUS_PER_NODE={gpus}
  EXPECT_EQ(recipes->find("gpt", "not_listed"), nullptr);
  EXPECT_NE(recipes->model_default("gpt"), nullptr);
}

TEST(MegatronConfig, ReadsModelArgsWithMergeKeysEnvReferencesAndLines) {
  auto recipes = RecipeIndex::load(kFixtures + "/recipes", 8);
  auto test = read_megatron_test(kFixtures + "/test_cases/gpt/tiny_resume_merge/model_config.yaml", *recipes,
                                 data().catalogue, data().megatron);
  ASSERT_TRUE(test.ok()) << test.error().to_string();
  EXPECT_EQ(test->id, "gpt/tiny_resume_merge");
  EXPECT_EQ(knob(*test, "layers")->value, "16");  // the map's own entry overrides the merged one
  EXPECT_EQ(knob(*test, "layers")->line, 10);
  EXPECT_EQ(knob(*test, "hidden")->value, "256");  // merged from BASE
  EXPECT_EQ(knob(*test, "tp")->value, "${TP_SIZE}");
  EXPECT_EQ(knob(*test, "world_size")->value, "8");
  EXPECT_FALSE(test->compares_golden_values);  // SKIP_PYTEST: 1
  EXPECT_EQ(test->phases, 2);
  EXPECT_EQ(test->facts.at("resume_at_half"), 1);
  EXPECT_TRUE(test->shrinkable.count("train_iters"));
}

TEST(MegatronConfig, BadModelArgsNameFileAndLine) {
  auto recipes = RecipeIndex::load(kFixtures + "/recipes", 8);
  const std::string path = kFixtures + "/test_cases/gpt/broken_args/model_config.yaml";
  auto test = read_megatron_test(path, *recipes, data().catalogue, data().megatron);
  ASSERT_FALSE(test.ok());
  EXPECT_EQ(test.error().file, path);
  EXPECT_EQ(test.error().line, 4);
  auto missing = read_megatron_test(kFixtures + "/test_cases/gpt/nothing/model_config.yaml", *recipes,
                                    data().catalogue, data().megatron);
  ASSERT_FALSE(missing.ok());
}

TEST(MegatronConfig, FixtureSuiteProposals) {
  auto plan = plan_megatron_suite(kFixtures, data(), ValidationMode::differential);
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  ASSERT_EQ(plan->problems.size(), 1u);  // broken_args
  ASSERT_EQ(plan->proposals.size(), 4u);
  auto find = [&](const std::string& id) -> const WorkloadProposal& {
    for (const auto& proposal : plan->proposals)
      if (proposal.test_id == id) return proposal;
    ADD_FAILURE() << id;
    return plan->proposals.front();
  };
  // Siblings that differ only in --seq-length: it is what they test.
  const auto& tp2_pp2 = find("gpt/tiny_tp2_pp2");
  EXPECT_TRUE(tp2_pp2.decision("seq_length")->in_scope);
  EXPECT_EQ(tp2_pp2.decision("layers")->proposed, "4");
  EXPECT_EQ(tp2_pp2.decision("train_iters")->proposed, "10");
  EXPECT_EQ(tp2_pp2.mode, ValidationMode::differential);

  const auto& resume = find("gpt/tiny_resume_merge");
  EXPECT_EQ(resume.mode, ValidationMode::exact);
  EXPECT_EQ(resume.decision("train_iters")->proposed, "10");
  EXPECT_EQ(resume.decision("save_interval")->proposed, "5");
  EXPECT_EQ(resume.decision("lr_decay_iters")->proposed, "100");
  EXPECT_EQ(resume.decision("layers")->proposed, "16");  // 8 chunks of 2 layers: already minimal
  EXPECT_EQ(resume.decision("tp")->reason, "kept: not a literal integer (${TP_SIZE})");

  const auto& moe = find("moe/tiny_moe_pattern");
  EXPECT_EQ(moe.gpus, 4);
  EXPECT_EQ(moe.decision("layers")->proposed, "4");
  EXPECT_EQ(moe.decision("moe_layer_freq")->proposed, "([0]*1+[1]*3)");
  EXPECT_EQ(moe.decision("exit_interval")->proposed, "10");
  EXPECT_TRUE(moe.decision("experts")->in_scope);
  for (const auto& proposal : plan->proposals) EXPECT_TRUE(proposal.all_constraints_pass()) << proposal.test_id;
}

TEST(MegatronConfig, GoldenStepTimesAreMedians) {
  const std::string dir = std::string(FASTCI_SHARED_DIR) + "/data/megatron/test_cases/gpt/gpt3_mcore_te_tp2_pp2";
  auto times = read_golden_step_times(dir);
  if (times.empty()) GTEST_SKIP() << "no Megatron data at " << dir;
  ASSERT_TRUE(times.count("golden_values_dev_dgx_a100.json"));
  EXPECT_GT(times.at("golden_values_dev_dgx_a100.json"), 0.05);
  EXPECT_LT(times.at("golden_values_dev_dgx_a100.json"), 5.0);
}

}  // namespace
}  // namespace fastci::planner::workload
