#include "planner/workload/propose.h"

#include <gtest/gtest.h>

namespace fastci::planner::workload {
namespace {

struct Data {
  Catalogue catalogue;
  Constraints constraints;
};

const Data& data() {
  static const Data loaded{*Catalogue::load(std::string(FASTCI_WORKLOAD_DATA_DIR) + "/knobs.toml"),
                           *Constraints::load(std::string(FASTCI_WORKLOAD_DATA_DIR) + "/constraints.toml")};
  return loaded;
}

/// A pytest-style test with constructor kwargs, as the Python frontend reports them.
TestWorkload unit_test() {
  TestWorkload test;
  test.id = "tests/unit/test_model.py::test_forward[bf16]";
  test.framework = "pytest";
  test.override_form = OverrideForm::env;
  test.gpus = 2;
  for (auto [raw, value] : std::vector<std::pair<std::string, std::string>>{
           {"num_layers", "8"}, {"hidden_size", "1024"}, {"num_attention_heads", "16"}, {"seq_length", "2048"},
           {"world_size", "2"}, {"tensor_model_parallel_size", "2"}, {"max_steps", "100"}})
    test.knobs.push_back({*data().catalogue.canonical(raw), raw, value, frontend::KnobOrigin::keyword_argument, "", 0});
  return test;
}

SizedRun run_at(std::map<std::string, std::string> knobs, std::set<std::string> kernels) {
  SizedRun run;
  run.knobs = std::move(knobs);
  run.covered_symbols = {"py:model.forward", "py:model.attention"};
  run.context_keys = {"ctx:attention:bf16:rank3"};
  run.kernels = std::move(kernels);
  run.seconds = 30;
  run.gpus = 2;
  return run;
}

std::map<std::string, std::string> original_knobs() {
  return {{"layers", "8"}, {"hidden", "1024"}, {"heads", "16"}, {"seq_length", "2048"}, {"world_size", "2"},
          {"tp", "2"}, {"train_iters", "100"}};
}

TEST(Propose, ShrinksOnlyWhereEvidenceAtTheSmallerSizeMatches) {
  const std::set<std::string> kernels{"flash_fwd", "gemm_bf16"};
  auto smaller_layers = original_knobs();
  smaller_layers["layers"] = "2";
  auto smaller_seq = original_knobs();
  smaller_seq["seq_length"] = "512";
  smaller_seq["layers"] = "2";
  smaller_seq["hidden"] = "256";
  auto smaller_hidden = original_knobs();
  smaller_hidden["hidden"] = "256";
  std::vector<SizedRun> history = {run_at(original_knobs(), kernels), run_at(smaller_layers, kernels),
                                   run_at(smaller_seq, {"flash_fwd_short", "gemm_bf16"}),  // other kernel set
                                   run_at(smaller_hidden, kernels)};
  history.back().knobs["layers"] = "2";  // hidden evidence only at layers 2: matches after layers shrank
  auto proposal = propose(unit_test(), data().catalogue, data().constraints, history, ValidationMode::exact);
  EXPECT_EQ(proposal.decision("layers")->proposed, "2");
  EXPECT_NE(proposal.decision("layers")->reason.find("evidence at layers=2"), std::string::npos);
  EXPECT_EQ(proposal.decision("seq_length")->proposed, "2048");
  // a run at the smaller size exists, but with another kernel set: the reason says what differs
  EXPECT_EQ(proposal.decision("seq_length")->reason,
            "kept: the run at seq_length=512 differs from the one at 2048 (0 symbols and 0 contexts only at the "
            "original size, 0 and 0 only at the smaller; kernels differ)");
  EXPECT_EQ(proposal.decision("hidden")->proposed, "256");
  EXPECT_EQ(proposal.mode, ValidationMode::exact);
  EXPECT_TRUE(proposal.all_constraints_pass());
  ASSERT_EQ(proposal.overrides.size(), 2u);
  EXPECT_EQ(proposal.overrides[0].text, "NUM_LAYERS=2");
  EXPECT_LT(proposal.after.gpu_seconds, proposal.before.gpu_seconds);
}

TEST(Propose, NeverBreaksARuleEvenWithEvidence) {
  auto three_heads = original_knobs();
  three_heads["heads"] = "3";  // 3 heads on TP 2: invalid
  std::vector<SizedRun> history = {run_at(original_knobs(), {"k"}), run_at(three_heads, {"k"})};
  auto proposal = propose(unit_test(), data().catalogue, data().constraints, history, ValidationMode::exact);
  EXPECT_EQ(proposal.decision("heads")->proposed, "16");
  EXPECT_TRUE(proposal.all_constraints_pass());
}

TEST(Propose, WithoutAReferenceRunNothingShrinks) {
  auto smaller = original_knobs();
  smaller["layers"] = "2";
  auto proposal = propose(unit_test(), data().catalogue, data().constraints, {run_at(smaller, {"k"})},
                          ValidationMode::exact);
  EXPECT_EQ(proposal.mode, ValidationMode::none);
  EXPECT_TRUE(proposal.overrides.empty());
}

TEST(Propose, InScopeKnobsNeverChange) {
  TestWorkload test = unit_test();
  test.declared_scope = {"layers"};
  auto smaller = original_knobs();
  smaller["layers"] = "2";
  auto proposal = propose(test, data().catalogue, data().constraints, {run_at(original_knobs(), {"k"}), run_at(smaller, {"k"})},
                          ValidationMode::exact);
  EXPECT_EQ(proposal.decision("layers")->proposed, "8");
  EXPECT_TRUE(proposal.decision("layers")->in_scope);
}

TEST(Propose, ChangedSymbolsNarrowTheComparison) {
  auto smaller = original_knobs();
  smaller["layers"] = "2";
  SizedRun reference = run_at(original_knobs(), {"k"});
  SizedRun small = run_at(smaller, {"k"});
  small.covered_symbols = {"py:model.forward"};  // loses attention coverage
  auto all = propose(unit_test(), data().catalogue, data().constraints, {reference, small}, ValidationMode::exact);
  EXPECT_EQ(all.decision("layers")->proposed, "8");
  const std::set<std::string> changed{"py:model.forward"};
  ProposeOptions options;
  options.changed_symbols = &changed;
  auto narrowed = propose(unit_test(), data().catalogue, data().constraints, {reference, small}, ValidationMode::exact,
                          options);
  EXPECT_EQ(narrowed.decision("layers")->proposed, "2");
  // Contexts of a symbol the change does not touch may differ (other ranks' calls); the changed one's not.
  reference.context_keys.insert("py:model.attention|rank:int[1]");
  auto other_symbol = propose(unit_test(), data().catalogue, data().constraints, {reference, small},
                              ValidationMode::exact, options);
  EXPECT_EQ(other_symbol.decision("layers")->proposed, "2");
  reference.context_keys.insert("py:model.forward|rank:int[1]");
  auto changed_symbol = propose(unit_test(), data().catalogue, data().constraints, {reference, small},
                                ValidationMode::exact, options);
  EXPECT_EQ(changed_symbol.decision("layers")->proposed, "8");
}

TEST(Propose, GoldenValueTestsShrinkOnlyInDifferentialMode) {
  TestWorkload test;
  test.id = "gpt/x";
  test.override_form = OverrideForm::megatron_yaml;
  test.compares_golden_values = true;
  test.gpus = 8;
  test.shrinkable = {"train_iters", "layers"};
  for (auto [raw, value] : std::vector<std::pair<std::string, std::string>>{
           {"--num-layers", "12"}, {"--train-iters", "50"}, {"--pipeline-model-parallel-size", "2"}})
    test.knobs.push_back({*data().catalogue.canonical(raw), raw, value, frontend::KnobOrigin::config_file, "", 0});
  auto exact = propose(test, data().catalogue, data().constraints, {}, ValidationMode::exact);
  EXPECT_EQ(exact.mode, ValidationMode::none);
  EXPECT_NE(exact.mode_reason.find("differential mode is not allowed"), std::string::npos);
  auto differential = propose(test, data().catalogue, data().constraints, {}, ValidationMode::differential);
  EXPECT_EQ(differential.mode, ValidationMode::differential);
  EXPECT_EQ(differential.decision("layers")->proposed, "4");
  EXPECT_EQ(differential.decision("train_iters")->proposed, "10");
  EXPECT_EQ(differential.decision("lr_decay_iters")->proposed, "50");
  auto none = propose(test, data().catalogue, data().constraints, {}, ValidationMode::none);
  EXPECT_TRUE(none.overrides.empty());
}

}  // namespace
}  // namespace fastci::planner::workload
