#include "planner/workload/catalogue.h"

#include <gtest/gtest.h>

namespace fastci::planner::workload {
namespace {

const Catalogue& catalogue() {
  static const Catalogue loaded = [] {
    auto result = Catalogue::load(std::string(FASTCI_WORKLOAD_DATA_DIR) + "/knobs.toml");
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().to_string());
    return result.ok() ? *result : Catalogue();
  }();
  return loaded;
}

TEST(Catalogue, MapsEveryFrameworkSpellingToOneName) {
  EXPECT_EQ(catalogue().canonical("--num-layers"), "layers");         // Megatron MODEL_ARGS
  EXPECT_EQ(catalogue().canonical("num_hidden_layers"), "layers");    // Hugging Face config kwarg
  EXPECT_EQ(catalogue().canonical("model.config.num_layers"), "layers");  // NeMo override, by last part
  EXPECT_EQ(catalogue().canonical("trainer.strategy.tensor_model_parallel_size"), "tp");
  EXPECT_EQ(catalogue().canonical("train_micro_batch_size_per_gpu"), "micro_batch");  // DeepSpeed config
  EXPECT_EQ(catalogue().canonical("--training.steps"), "train_iters");                // torchtitan override
  EXPECT_EQ(catalogue().canonical("parallelism.context_parallel_degree"), "cp");
  EXPECT_EQ(catalogue().canonical("--num-layers-per-virtual-pipeline-stage"), "vpp_layers");
  EXPECT_EQ(catalogue().canonical("world_size"), "world_size");
  EXPECT_FALSE(catalogue().canonical("--lr").has_value());
  EXPECT_FALSE(catalogue().canonical("--tensorboard-dir").has_value());
}

TEST(Catalogue, CoversTheIssueKnobList) {
  for (const char* name : {"layers", "hidden", "ffn_hidden", "heads", "query_groups", "experts", "top_k",
                           "seq_length", "max_positions", "vocab", "micro_batch", "global_batch", "train_iters",
                           "eval_iters", "save_interval", "eval_interval", "tp", "pp", "vpp", "cp", "ep", "dp",
                           "world_size", "gpus_per_node", "nodes"})
    EXPECT_NE(catalogue().find(name), nullptr) << name;
}

TEST(Catalogue, ScopePatternsReadConfigFolderNames) {
  auto named = [](const std::string& id) {
    std::set<std::string> out;
    for (const auto& [knob, match] : catalogue().named_in(id)) out.insert(knob);
    return out;
  };
  const auto tp2_pp2 = named("gpt3_mcore_te_tp2_pp2");
  EXPECT_TRUE(tp2_pp2.count("tp"));
  EXPECT_TRUE(tp2_pp2.count("pp"));
  EXPECT_FALSE(tp2_pp2.count("cp"));
  EXPECT_FALSE(tp2_pp2.count("layers"));
  const auto moe = named("gpt3_mcore_te_tp2_pp1_te_8experts_etp1_ep4");
  EXPECT_TRUE(moe.count("experts"));
  EXPECT_TRUE(moe.count("ep"));
  EXPECT_TRUE(moe.count("etp"));
  EXPECT_FALSE(moe.count("pp") && !moe.count("tp"));
  // etp1 must not read as tp, vpp1 not as pp: only the explicit tp2/pp1 do.
  const auto vp = named("gpt3_mcore_te_tp1_pp4_vp1");
  EXPECT_TRUE(vp.count("vpp"));
  EXPECT_TRUE(named("deepseekv3_proxy_flex_tp1pp4emp16etp1cp1_release").count("cp"));
  EXPECT_TRUE(named("gpt_dynamic_inference_tp1_pp1_583m_logitsmatch").count("layers"));  // model size named
  EXPECT_TRUE(named("t5_release").count("train_iters"));
  EXPECT_FALSE(named("gpt3_mcore_te_tp2_pp2").count("train_iters"));
}

TEST(Catalogue, BadEntryNamesFileAndLine) {
  auto result = Catalogue::parse("[[knob]]\nname = \"x\"\nrole = \"bogus\"\n", "knobs.toml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().file, "knobs.toml");
  EXPECT_EQ(result.error().line, 1);
  EXPECT_NE(result.error().message.find("role"), std::string::npos);
  auto syntax = Catalogue::parse("[[knob]\n", "broken.toml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().file, "broken.toml");
  EXPECT_GE(syntax.error().line, 1);
  auto regex = Catalogue::parse("[[knob]]\nname = \"x\"\nrole = \"size\"\nscope_patterns = [\"(\"]\n", "k.toml");
  ASSERT_FALSE(regex.ok());
  EXPECT_NE(regex.error().message.find("scope pattern"), std::string::npos);
}

}  // namespace
}  // namespace fastci::planner::workload
