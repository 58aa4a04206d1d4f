#pragma once
/// Cost model: FLOPs ~ 6 x active parameters x tokens (+ attention), time = startup + steps x
/// (overhead + FLOPs / (GPUs x peak x utilization)), GPU-seconds = GPUs x time, over phases and repeats.

#include <map>
#include <string>
#include <vector>

#include "planner/workload/workload.h"
#include "util/result.h"

namespace fastci::planner::workload {

/// Parameters of the time model.
struct CostParameters {
  double peak_flops_per_gpu = 989e12;
  double utilization = 0.35;
  double step_overhead_seconds = 0.25;
  double startup_seconds = 120;
  double default_vocab = 50257;
  double forward_share = 1.0 / 3.0;
  std::string fitted_from;  ///< what the fitted values came from; empty when all are defaults
};

/// Reads data/cost.toml.
util::Result<CostParameters> load_cost_parameters(const std::string& path);

/// A GPT-style model's shape as the cost model needs it (0 = unknown / absent).
struct ModelShape {
  double layers = 0, encoder_layers = 0, hidden = 0, ffn_hidden = 0, heads = 0, query_groups = 0;
  double kv_channels = 0, vocab = 0, seq_length = 0, decoder_seq_length = 0, global_batch = 0;
  double experts = 0, top_k = 0, moe_ffn_hidden = 0, shared_expert_hidden = 0, moe_layers = 0;
  bool swiglu = false;
};

/// Shape from canonical knob values (defaults as Megatron derives them: ffn = 4h, kv = h / heads, ...).
ModelShape model_shape(const std::map<std::string, std::string>& knobs, const CostParameters& parameters);
/// Parameters touched per token: attention + (dense or top-k expert) MLP per layer + output layer.
double active_parameters(const ModelShape& shape);
/// Training FLOPs of one iteration: 6 x active parameters x tokens + 12 x layers x batch x seq^2 x heads x kv.
double flops_per_step(const ModelShape& shape);

/// Predicted cost of running `test` with knob values `knobs` (canonical name -> value).
CostEstimate estimate_cost(const TestWorkload& test, const std::map<std::string, std::string>& knobs,
                           const CostParameters& parameters);

/// One measured step time (Megatron golden values record `iteration-time` per step).
struct StepSample {
  double flops_per_step = 0;
  int gpus = 0;
  double seconds = 0;
  std::string origin;
};

/// Sets step_overhead_seconds to the mean of (measured step time - FLOPs time) over the samples.
CostParameters fit_step_overhead(const std::vector<StepSample>& samples, CostParameters parameters);
/// Least-squares fit of startup, per-step overhead and utilization to whole recorded runs
/// (knobs give steps and FLOPs); keeps defaults for what the runs cannot determine.
CostParameters fit_cost_parameters(const std::vector<SizedRun>& runs, CostParameters parameters);

}  // namespace fastci::planner::workload
