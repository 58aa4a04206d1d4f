// Every Megatron-LM functional test case in FASTCI_SHARED_DIR/data/megatron: proposals keep every rule,
// never touch an in-scope knob, and match hand-checked expectations on chosen cases.

#include <filesystem>

#include <gtest/gtest.h>

#include "planner/workload/megatron_plan.h"

namespace fastci::planner::workload {
namespace {

const std::string kMegatron = std::string(FASTCI_SHARED_DIR) + "/data/megatron";

const MegatronPlan& plan() {
  static const MegatronPlan loaded = [] {
    auto data = load_workload_data(FASTCI_WORKLOAD_DATA_DIR);
    EXPECT_TRUE(data.ok()) << (data.ok() ? "" : data.error().to_string());
    auto result = plan_megatron_suite(kMegatron, *data, ValidationMode::differential);
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().to_string());
    return result.ok() ? std::move(*result) : MegatronPlan();
  }();
  return loaded;
}

class MegatronSuite : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::is_directory(kMegatron + "/test_cases"))
      GTEST_SKIP() << "no Megatron functional-test data at " << kMegatron;
  }
  static const WorkloadProposal& proposal(const std::string& id) {
    for (const auto& item : plan().proposals)
      if (item.test_id == id) return item;
    ADD_FAILURE() << "no proposal for " << id;
    static const WorkloadProposal empty;
    return empty;
  }
  static std::string proposed(const std::string& id, const std::string& knob) {
    const KnobDecision* decision = proposal(id).decision(knob);
    return decision ? decision->proposed : "(absent)";
  }
};

TEST_F(MegatronSuite, EveryModelConfigGetsAProposal) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kMegatron + "/test_cases"))
    files += entry.path().filename() == "model_config.yaml";
  EXPECT_EQ(files, 333u);
  EXPECT_TRUE(plan().problems.empty()) << plan().problems.front().to_string();
  EXPECT_EQ(plan().proposals.size(), files);
}

TEST_F(MegatronSuite, NoProposalBreaksAConstraint) {
  size_t checked = 0;
  for (const WorkloadProposal& item : plan().proposals) {
    EXPECT_TRUE(item.original_violations.empty()) << item.test_id << ": " << item.original_violations.front();
    for (const ConstraintResult& result : item.constraints) {
      EXPECT_NE(result.status, ConstraintResult::Status::fail) << item.test_id << " " << result.id << ": " << result.detail;
      checked += result.status == ConstraintResult::Status::pass;
    }
    EXPECT_GT(item.gpus, 0) << item.test_id;
  }
  EXPECT_GT(checked, 3000u);
}

TEST_F(MegatronSuite, NoInScopeKnobChanges) {
  for (const WorkloadProposal& item : plan().proposals)
    for (const KnobDecision& decision : item.decisions)
      if (decision.in_scope) {
        EXPECT_FALSE(decision.changed()) << item.test_id << " " << decision.name;
      }
}

TEST_F(MegatronSuite, OnlyWorkRepeatingKnobsShrinkWithoutEvidence) {
  const std::set<std::string> allowed{"train_iters", "layers", "save_interval", "eval_interval", "exit_interval",
                                      "log_interval", "tensorboard_log_interval", "manual_gc_interval",
                                      "check_weight_hash_interval", "save_retain_interval", "lr_decay_iters",
                                      "vpp_layers", "first_stage_layers", "last_stage_layers", "moe_layer_freq",
                                      "recompute_layers"};
  for (const WorkloadProposal& item : plan().proposals) {
    for (const KnobDecision& decision : item.decisions)
      if (decision.changed()) {
        EXPECT_TRUE(allowed.count(decision.name)) << item.test_id << " " << decision.name;
      }
    for (const Override& override_ : item.overrides)
      EXPECT_EQ(override_.form, OverrideForm::megatron_yaml);
    // Golden-value tests that shrink are compared against a base run at the same size.
    if (!item.overrides.empty() && item.mode != ValidationMode::exact) {
      EXPECT_EQ(item.mode, ValidationMode::differential) << item.test_id;
    }
    EXPECT_LE(item.after.gpu_seconds, item.before.gpu_seconds + 1e-9) << item.test_id;
  }
}

TEST_F(MegatronSuite, GptTp2Pp2) {
  const std::string id = "gpt/gpt3_mcore_te_tp2_pp2";
  const WorkloadProposal& item = proposal(id);
  EXPECT_EQ(item.gpus, 8);
  EXPECT_EQ(proposed(id, "layers"), "4");         // 12 layers on 2 stages -> first + last of each
  EXPECT_EQ(proposed(id, "train_iters"), "10");
  EXPECT_EQ(proposed(id, "save_interval"), "10000");  // never fired, still never fires
  EXPECT_EQ(proposed(id, "lr_decay_iters"), "320000");
  EXPECT_TRUE(item.decision("tp")->in_scope);
  EXPECT_TRUE(item.decision("pp")->in_scope);
  EXPECT_EQ(item.mode, ValidationMode::differential);  // golden values at 50 steps of 12 layers
  bool found = false;
  for (const Override& override_ : item.overrides)
    found |= override_.text == ".MODEL_ARGS.\"--num-layers\" = 4";
  EXPECT_TRUE(found);
}

TEST_F(MegatronSuite, MoeCheckpointResume) {
  const std::string id = "moe/gpt3_mcore_te_tp2_pp1_resume_torch_dist_te_8experts2parallel_dist_optimizer";
  EXPECT_EQ(proposed(id, "train_iters"), "10");
  EXPECT_EQ(proposed(id, "save_interval"), "5");  // resumes from iteration train_iters / 2
  EXPECT_EQ(proposed(id, "layers"), "2");
  EXPECT_TRUE(proposal(id).decision("experts")->in_scope);
  EXPECT_TRUE(proposal(id).decision("ep")->in_scope);
  EXPECT_EQ(proposal(id).decision("experts")->proposed, "8");
}

TEST_F(MegatronSuite, DenseThenMoePattern) {
  const std::string id = "moe/deepseek_proxy_fsdp_ep2_fsdp2";
  EXPECT_EQ(proposed(id, "layers"), "2");
  EXPECT_EQ(proposed(id, "moe_layer_freq"), "([0]*1+[1]*1)");
  EXPECT_EQ(proposed(id, "exit_interval"), "10");
}

TEST_F(MegatronSuite, RecordedCheckpointsAndNamedShapesAreKept) {
  // frozen-resume loads a recorded checkpoint: shape and iterations stay.
  const std::string frozen = "bert/bert_mcore_tp2_pp2_frozen_resume_torch_dist";
  EXPECT_EQ(proposal(frozen).mode, ValidationMode::none);
  EXPECT_NE(proposal(frozen).decision("layers")->reason.find("recorded checkpoint"), std::string::npos);
  // "uneven" in the name: the stage layout is what it tests.
  EXPECT_TRUE(proposal("gpt/gpt3_mcore_te_tp1_pp4_vp1_uneven_pipeline").decision("layers")->in_scope);
  // Virtual stages of one layer each: nothing left to drop.
  EXPECT_EQ(proposed("gpt/gpt3_mcore_te_tp1_pp4_vp1", "layers"), "12");
  // Release (convergence) runs validate their length and size.
  EXPECT_TRUE(proposal("t5/t5_release").decision("train_iters")->in_scope);
}

TEST_F(MegatronSuite, CostModelUsesMeasuredStepTimes) {
  EXPECT_NE(plan().cost.fitted_from.find("measured step times"), std::string::npos);
  EXPECT_GT(plan().cost.step_overhead_seconds, 0.1);
  EXPECT_LT(plan().cost.step_overhead_seconds, 1.0);
  double before = 0, after = 0;
  for (const auto& item : plan().proposals) {
    before += item.before.gpu_seconds;
    after += item.after.gpu_seconds;
  }
  EXPECT_LT(after, before);
}

}  // namespace
}  // namespace fastci::planner::workload
