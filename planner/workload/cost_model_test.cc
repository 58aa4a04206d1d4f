#include "planner/workload/cost_model.h"

#include <cmath>

#include <gtest/gtest.h>

namespace fastci::planner::workload {
namespace {

TEST(CostModel, GptParametersAreTwelveLayersHiddenSquaredPlusVocabulary) {
  CostParameters parameters;
  // GPT-2 medium-like: 24 layers, h = 1024, 16 heads, FFN 4h.
  ModelShape shape = model_shape({{"layers", "24"}, {"hidden", "1024"}, {"heads", "16"}, {"vocab", "50304"},
                                  {"seq_length", "1024"}, {"global_batch", "8"}},
                                 parameters);
  const double expected = 12 * 24 * 1024.0 * 1024.0 + 50304.0 * 1024.0;
  EXPECT_DOUBLE_EQ(active_parameters(shape), expected);
  const double tokens = 8 * 1024.0;
  EXPECT_DOUBLE_EQ(flops_per_step(shape), 6 * expected * tokens + 12 * 8 * 1024.0 * 24 * 1024.0 * 1024.0);
}

TEST(CostModel, MoeCountsOnlyRoutedExpertsAndGroupedQueries) {
  CostParameters parameters;
  auto dense = model_shape({{"layers", "4"}, {"hidden", "512"}, {"heads", "8"}}, parameters);
  auto moe = model_shape({{"layers", "4"}, {"hidden", "512"}, {"heads", "8"}, {"experts", "64"}, {"top_k", "1"}},
                         parameters);
  // One routed expert of FFN 4h costs the dense MLP plus the router.
  EXPECT_DOUBLE_EQ(active_parameters(moe) - active_parameters(dense), 4 * 512.0 * 64);
  auto grouped = model_shape({{"layers", "4"}, {"hidden", "512"}, {"heads", "8"}, {"group_query_attention", "true"},
                              {"query_groups", "2"}},
                             parameters);
  EXPECT_LT(active_parameters(grouped), active_parameters(dense));
  auto pattern = model_shape({{"layers", "4"}, {"hidden", "512"}, {"heads", "8"}, {"experts", "8"},
                              {"moe_layer_freq", "([0]*1+[1]*3)"}},
                             parameters);
  EXPECT_EQ(pattern.moe_layers, 3);
}

TEST(CostModel, GpuSecondsCountPhasesRepeatsAndGpus) {
  CostParameters parameters;
  parameters.startup_seconds = 100;
  parameters.step_overhead_seconds = 1;
  TestWorkload test;
  test.gpus = 8;
  test.repeats = 2;
  std::map<std::string, std::string> knobs{{"train_iters", "10"}, {"eval_iters", "0"}};
  // No model shape: FLOPs 0, so 2 repeats x 8 GPUs x (100 s + 10 steps x 1 s).
  EXPECT_DOUBLE_EQ(estimate_cost(test, knobs, parameters).gpu_seconds, 2 * 8 * 110.0);
  test.phases = 2;
  test.facts["resume_at_half"] = 1;
  EXPECT_DOUBLE_EQ(estimate_cost(test, knobs, parameters).gpu_seconds, 2 * 8 * (200.0 + 15));
}

TEST(CostModel, FitsStepOverheadAndWholeRuns) {
  CostParameters parameters;
  auto fitted = fit_step_overhead({{0, 8, 0.3, "a"}, {0, 8, 0.2, "b"}}, parameters);
  EXPECT_NEAR(fitted.step_overhead_seconds, 0.25, 1e-12);
  EXPECT_FALSE(fitted.fitted_from.empty());
  // Runs generated from startup 60 s, overhead 0.5 s/step, utilization 0.5.
  std::vector<SizedRun> runs;
  for (auto [iterations, layers] : {std::pair{10, 2}, {50, 12}, {100, 4}, {20, 24}}) {
    SizedRun run;
    run.knobs = {{"train_iters", std::to_string(iterations)}, {"layers", std::to_string(layers)},
                 {"hidden", "4096"}, {"heads", "32"}, {"seq_length", "4096"}, {"global_batch", "64"}};
    run.gpus = 8;
    const double flops = flops_per_step(model_shape(run.knobs, parameters));
    run.seconds = 60 + iterations * (0.5 + flops / (8 * parameters.peak_flops_per_gpu * 0.5));
    runs.push_back(run);
  }
  auto fit = fit_cost_parameters(runs, parameters);
  EXPECT_NEAR(fit.startup_seconds, 60, 1e-3);
  EXPECT_NEAR(fit.step_overhead_seconds, 0.5, 1e-4);
  EXPECT_NEAR(fit.utilization, 0.5, 1e-4);
}

}  // namespace
}  // namespace fastci::planner::workload
