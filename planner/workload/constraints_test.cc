#include "planner/workload/constraints.h"

#include <gtest/gtest.h>

namespace fastci::planner::workload {
namespace {

struct Data {
  Catalogue catalogue;
  Constraints constraints;
};

const Data& data() {
  static const Data loaded = [] {
    const std::string dir = FASTCI_WORKLOAD_DATA_DIR;
    auto catalogue = Catalogue::load(dir + "/knobs.toml");
    auto constraints = Constraints::load(dir + "/constraints.toml");
    EXPECT_TRUE(catalogue.ok() && constraints.ok());
    return Data{catalogue.ok() ? *catalogue : Catalogue(), constraints.ok() ? *constraints : Constraints()};
  }();
  return loaded;
}

using Map = std::map<std::string, std::string>;

ConstraintResult::Status status_of(const std::string& id, const Map& current, const Map& original = {},
                                   const std::map<std::string, long long>& facts = {}) {
  KnobValues values{current, original, facts};
  for (const ConstraintResult& result : data().constraints.check(values, data().catalogue))
    if (result.id == id) return result.status;
  ADD_FAILURE() << "no rule " << id;
  return ConstraintResult::Status::not_applicable;
}

/// One rule on one configuration and what it must say.
struct Case {
  std::string id;
  Map current;
  ConstraintResult::Status expected;
  Map original = {};
  std::map<std::string, long long> facts = {};
};

constexpr auto kPass = ConstraintResult::Status::pass;
constexpr auto kFail = ConstraintResult::Status::fail;
constexpr auto kSkip = ConstraintResult::Status::not_applicable;

TEST(Constraints, EveryRuleHoldsAndBreaksOnAKnownCase) {
  const std::vector<Case> cases = {
      {"model_parallel_divides_world", {{"world_size", "8"}, {"tp", "2"}, {"pp", "2"}, {"cp", "2"}}, kPass},
      {"model_parallel_divides_world", {{"world_size", "8"}, {"tp", "3"}}, kFail},
      {"expert_grid_divides_world", {{"world_size", "8"}, {"experts", "8"}, {"ep", "4"}, {"tp", "2"}}, kPass},
      {"expert_grid_divides_world", {{"world_size", "8"}, {"experts", "8"}, {"ep", "4"}, {"etp", "1"}, {"pp", "4"}}, kFail},
      {"experts_divisible_by_ep", {{"experts", "8"}, {"ep", "4"}}, kPass},
      {"experts_divisible_by_ep", {{"experts", "6"}, {"ep", "4"}}, kFail},
      {"experts_divisible_by_ep", {{"ep", "1"}}, kSkip},
      {"heads_divisible_by_tp", {{"heads", "8"}, {"tp", "4"}}, kPass},
      {"heads_divisible_by_tp", {{"heads", "6"}, {"tp", "4"}}, kFail},
      {"query_groups_multiple_or_divisor_of_tp", {{"group_query_attention", "true"}, {"query_groups", "2"}, {"tp", "4"}}, kPass},
      {"query_groups_multiple_or_divisor_of_tp", {{"group_query_attention", "true"}, {"query_groups", "3"}, {"tp", "2"}}, kFail},
      {"query_groups_multiple_or_divisor_of_tp", {{"query_groups", "3"}, {"tp", "2"}}, kSkip},
      {"hidden_divisible_by_heads", {{"hidden", "512"}, {"heads", "8"}}, kPass},
      {"hidden_divisible_by_heads", {{"hidden", "500"}, {"heads", "8"}}, kFail},
      {"hidden_divisible_by_heads", {{"hidden", "500"}, {"heads", "8"}, {"kv_channels", "64"}}, kSkip},
      {"layers_divisible_by_pp", {{"layers", "12"}, {"pp", "4"}}, kPass},
      {"layers_divisible_by_pp", {{"layers", "10"}, {"pp", "4"}}, kFail},
      {"layers_divisible_by_pp", {{"layers", "14"}, {"pp", "4"}}, kPass, {}, {{"pipeline_split_extra", 2}}},
      {"layers_divisible_by_pp", {{"layers", "10"}, {"pp", "4"}, {"first_stage_layers", "2"}}, kSkip},
      {"stage_layers_divisible_by_vpp_layers", {{"layers", "16"}, {"pp", "4"}, {"vpp_layers", "2"}}, kPass},
      {"stage_layers_divisible_by_vpp_layers", {{"layers", "12"}, {"pp", "4"}, {"vpp_layers", "2"}}, kFail},
      {"layers_divisible_by_pp_times_vpp", {{"layers", "16"}, {"pp", "4"}, {"vpp", "2"}}, kPass},
      {"layers_divisible_by_pp_times_vpp", {{"layers", "12"}, {"pp", "4"}, {"vpp", "2"}}, kFail},
      {"interleaved_schedule_needs_pp", {{"layers", "8"}, {"pp", "2"}, {"vpp_layers", "2"}}, kPass},
      {"interleaved_schedule_needs_pp", {{"layers", "8"}, {"pp", "1"}, {"vpp", "2"}}, kFail},
      {"uneven_pipeline_layers", {{"layers", "12"}, {"pp", "4"}, {"first_stage_layers", "2"}, {"last_stage_layers", "2"}}, kPass},
      {"uneven_pipeline_layers", {{"layers", "11"}, {"pp", "4"}, {"first_stage_layers", "2"}, {"last_stage_layers", "2"}}, kFail},
      {"uneven_pipeline_layers", {{"layers", "5"}, {"pp", "2"}, {"first_stage_layers", "2"}, {"last_stage_layers", "2"}}, kFail},
      {"virtual_stages_kept", {{"layers", "8"}, {"pp", "2"}, {"vpp_layers", "2"}}, kPass, {{"layers", "16"}, {"pp", "2"}, {"vpp_layers", "4"}}},
      {"virtual_stages_kept", {{"layers", "8"}, {"pp", "2"}, {"vpp_layers", "2"}}, kFail, {{"layers", "16"}, {"pp", "2"}, {"vpp_layers", "2"}}},
      {"moe_pattern_matches_layers", {{"layers", "4"}, {"moe_layer_freq", "([0]*1+[1]*3)"}}, kPass},
      {"moe_pattern_matches_layers", {{"layers", "14"}, {"moe_layer_freq", "([0]*3+[1]*12)"}}, kFail},
      {"moe_pattern_matches_layers", {{"layers", "14"}, {"moe_layer_freq", "2"}}, kSkip},
      {"recompute_layers_within_stage", {{"layers", "8"}, {"pp", "2"}, {"recompute_layers", "4"}}, kPass},
      {"recompute_layers_within_stage", {{"layers", "8"}, {"pp", "2"}, {"recompute_layers", "5"}}, kFail},
      {"seq_divisible_by_2cp", {{"seq_length", "4096"}, {"cp", "4"}}, kPass},
      {"seq_divisible_by_2cp", {{"seq_length", "1020"}, {"cp", "4"}}, kFail},
      {"seq_divisible_by_tp_cp_with_sequence_parallel", {{"seq_length", "1024"}, {"tp", "2"}, {"cp", "2"}, {"sequence_parallel", "true"}}, kPass},
      {"seq_divisible_by_tp_cp_with_sequence_parallel", {{"seq_length", "1028"}, {"tp", "2"}, {"cp", "2"}, {"sequence_parallel", "true"}}, kFail},
      {"seq_divisible_by_tp_cp_with_sequence_parallel", {{"seq_length", "1027"}, {"tp", "2"}}, kSkip},
      {"max_positions_cover_seq", {{"seq_length", "1024"}, {"max_positions", "1024"}}, kPass},
      {"max_positions_cover_seq", {{"seq_length", "2048"}, {"max_positions", "1024"}}, kFail},
      {"max_positions_cover_decoder_seq", {{"decoder_seq_length", "128"}, {"max_positions", "512"}}, kPass},
      {"max_positions_cover_decoder_seq", {{"decoder_seq_length", "1024"}, {"max_positions", "512"}}, kFail},
      {"global_batch_divisible_by_micro_times_dp", {{"world_size", "8"}, {"tp", "2"}, {"pp", "2"}, {"micro_batch", "4"}, {"global_batch", "32"}}, kPass},
      {"global_batch_divisible_by_micro_times_dp", {{"world_size", "8"}, {"micro_batch", "4"}, {"global_batch", "16"}}, kFail},
      {"micro_batch_at_most_global", {{"micro_batch", "4"}, {"global_batch", "32"}}, kPass},
      {"micro_batch_at_most_global", {{"micro_batch", "64"}, {"global_batch", "32"}}, kFail},
      {"top_k_at_most_experts", {{"experts", "8"}, {"top_k", "2"}}, kPass},
      {"top_k_at_most_experts", {{"experts", "2"}, {"top_k", "4"}}, kFail},
      {"train_iters_positive", {{"train_iters", "10"}}, kPass},
      {"train_iters_positive", {{"train_iters", "0"}}, kFail},
      {"save_retain_multiple_of_save", {{"save_retain_interval", "5000"}, {"save_interval", "5"}}, kPass},
      {"save_retain_multiple_of_save", {{"save_retain_interval", "5000"}, {"save_interval", "7"}}, kFail},
      {"save_interval_fires_as_before", {{"train_iters", "10"}, {"save_interval", "5"}}, kPass, {{"train_iters", "100"}, {"save_interval", "50"}}},
      {"save_interval_fires_as_before", {{"train_iters", "10"}, {"save_interval", "50"}}, kFail, {{"train_iters", "100"}, {"save_interval", "50"}}},
      {"save_interval_fires_as_before", {{"train_iters", "10"}, {"save_interval", "5"}}, kFail, {{"train_iters", "100"}, {"save_interval", "10000"}}},
      {"eval_interval_fires_as_before", {{"train_iters", "10"}, {"eval_interval", "1000"}}, kPass, {{"train_iters", "50"}, {"eval_interval", "1000"}}},
      {"eval_interval_fires_as_before", {{"train_iters", "10"}, {"eval_interval", "20"}}, kFail, {{"train_iters", "50"}, {"eval_interval", "20"}}},
      {"log_interval_fires_as_before", {{"train_iters", "10"}, {"log_interval", "1"}}, kPass, {{"train_iters", "50"}, {"log_interval", "1"}}},
      {"log_interval_fires_as_before", {{"train_iters", "10"}, {"log_interval", "20"}}, kFail, {{"train_iters", "50"}, {"log_interval", "20"}}},
      {"tensorboard_interval_fires_as_before", {{"train_iters", "10"}, {"tensorboard_log_interval", "1"}}, kPass, {{"train_iters", "50"}, {"tensorboard_log_interval", "1"}}},
      {"tensorboard_interval_fires_as_before", {{"train_iters", "10"}, {"tensorboard_log_interval", "20"}}, kFail, {{"train_iters", "50"}, {"tensorboard_log_interval", "20"}}},
      {"manual_gc_interval_fires_as_before", {{"train_iters", "10"}, {"manual_gc_interval", "0"}}, kPass, {{"train_iters", "50"}, {"manual_gc_interval", "0"}}},
      {"manual_gc_interval_fires_as_before", {{"train_iters", "10"}, {"manual_gc_interval", "100"}}, kFail, {{"train_iters", "150"}, {"manual_gc_interval", "100"}}},
      {"weight_hash_check_fires_as_before", {{"train_iters", "10"}, {"check_weight_hash_interval", "10"}}, kPass, {{"train_iters", "50"}, {"check_weight_hash_interval", "10"}}},
      {"weight_hash_check_fires_as_before", {{"train_iters", "10"}, {"check_weight_hash_interval", "50"}}, kFail, {{"train_iters", "50"}, {"check_weight_hash_interval", "50"}}},
      {"exit_interval_fires_as_before", {{"train_iters", "10"}, {"exit_interval", "10"}}, kPass, {{"train_iters", "50"}, {"exit_interval", "50"}}},
      {"exit_interval_fires_as_before", {{"train_iters", "10"}, {"exit_interval", "50"}}, kFail, {{"train_iters", "50"}, {"exit_interval", "50"}}},
      {"lr_warmup_boundary_as_before", {{"train_iters", "10"}, {"lr_warmup_iters", "150"}}, kPass, {{"train_iters", "100"}, {"lr_warmup_iters", "150"}}},
      {"lr_warmup_boundary_as_before", {{"train_iters", "10"}, {"lr_warmup_iters", "20"}}, kFail, {{"train_iters", "100"}, {"lr_warmup_iters", "20"}}},
      {"lr_decay_boundary_as_before", {{"train_iters", "10"}, {"lr_decay_iters", "320000"}}, kPass, {{"train_iters", "50"}, {"lr_decay_iters", "320000"}}},
      {"lr_decay_boundary_as_before", {{"train_iters", "10"}, {"lr_decay_iters", "20"}}, kFail, {{"train_iters", "50"}, {"lr_decay_iters", "20"}}},
      {"cuda_graph_capture_as_before", {{"train_iters", "10"}, {"cuda_graph_warmup_steps", "3"}}, kPass, {{"train_iters", "50"}, {"cuda_graph_warmup_steps", "3"}}},
      {"cuda_graph_capture_as_before", {{"train_iters", "10"}, {"cuda_graph_warmup_steps", "20"}}, kFail, {{"train_iters", "50"}, {"cuda_graph_warmup_steps", "20"}}},
      {"resume_checkpoint_at_half", {{"train_iters", "10"}, {"save_interval", "5"}}, kPass, {}, {{"resume_at_half", 1}}},
      {"resume_checkpoint_at_half", {{"train_iters", "10"}, {"save_interval", "10"}}, kFail, {}, {{"resume_at_half", 1}}},
      {"resume_checkpoint_at_half", {{"train_iters", "10"}, {"save_interval", "10"}}, kSkip},
  };
  std::set<std::string> passed, failed;
  for (const Case& c : cases) {
    EXPECT_EQ(status_of(c.id, c.current, c.original, c.facts), c.expected) << c.id << " case " << (&c - &cases[0]);
    if (c.expected == kPass) passed.insert(c.id);
    if (c.expected == kFail) failed.insert(c.id);
  }
  for (const ConstraintSpec& rule : data().constraints.rules()) {
    EXPECT_TRUE(passed.count(rule.id)) << "no passing case for " << rule.id;
    EXPECT_TRUE(failed.count(rule.id)) << "no failing case for " << rule.id;
    EXPECT_FALSE(rule.source.empty()) << rule.id;
  }
}

TEST(Constraints, EnvironmentReferencesAreUnknownNotDefaults) {
  // ${VAR} is not a literal: the rule cannot be checked, and the default (tp = 1) must not stand in.
  EXPECT_EQ(status_of("heads_divisible_by_tp", {{"heads", "6"}, {"tp", "${TP}"}}), kSkip);
  EXPECT_EQ(parse_integer("${TP}"), std::nullopt);
  EXPECT_EQ(parse_integer("1e-2"), std::nullopt);
  EXPECT_EQ(parse_integer("true"), 1);
  EXPECT_EQ(parse_integer("-3"), -3);
}

TEST(Constraints, BadRuleNamesFileAndLine) {
  auto result = Constraints::parse("[[constraint]]\nid = \"x\"\ncheck = \"a +\"\nsource = \"s\"\n", "c.toml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().file, "c.toml");
  EXPECT_EQ(result.error().line, 1);
  auto unsourced = Constraints::parse("[[constraint]]\nid = \"x\"\ncheck = \"1\"\n", "c.toml");
  ASSERT_FALSE(unsourced.ok());
  EXPECT_NE(unsourced.error().message.find("source"), std::string::npos);
}

}  // namespace
}  // namespace fastci::planner::workload
