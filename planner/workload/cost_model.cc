#include "planner/workload/cost_model.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "planner/workload/constraints.h"
#include "planner/workload/data_file.h"
#include "planner/workload/layers.h"

namespace fastci::planner::workload {
namespace {

double number(const std::map<std::string, std::string>& knobs, const std::string& name, double fallback = 0) {
  auto found = knobs.find(name);
  if (found == knobs.end()) return fallback;
  auto value = parse_integer(found->second);
  return value ? static_cast<double>(*value) : fallback;
}

double moe_layer_count(const std::map<std::string, std::string>& knobs, double layers) {
  auto found = knobs.find("moe_layer_freq");
  if (found == knobs.end()) return layers;
  if (auto list = parse_layer_list(found->second))
    return static_cast<double>(std::count(list->begin(), list->end(), 1));
  if (auto frequency = parse_integer(found->second); frequency && *frequency > 0)
    return std::ceil(layers / static_cast<double>(*frequency));
  return layers;
}

/// Training steps of one repeat and the phases that each start the job.
struct Steps {
  double train = 0;
  double eval = 0;
};

Steps steps_of(const TestWorkload& test, const std::map<std::string, std::string>& knobs) {
  Steps out;
  double iterations = number(knobs, "train_iters");
  if (iterations <= 0 && number(knobs, "global_batch") > 0)
    iterations = std::floor(number(knobs, "train_samples") / number(knobs, "global_batch"));
  // A run stops at --exit-interval (release tests train in windows up to it).
  if (const double exit = number(knobs, "exit_interval"); exit > 0 && exit < iterations) iterations = exit;
  if (iterations <= 0 || !test.training) return out;
  auto resume = test.facts.find("resume_at_half");
  const bool resumes = resume != test.facts.end() && resume->second != 0;
  out.train = iterations + (resumes ? std::floor(iterations / 2) : 0);
  const double eval_iters = number(knobs, "eval_iters", 100);
  const double eval_interval = number(knobs, "eval_interval", 1000);
  // Evaluation every eval_interval iterations and once at the end of training.
  double evaluations = (eval_interval > 0 ? std::floor(iterations / eval_interval) : 0) + 1;
  out.eval = eval_iters * evaluations * (resumes ? 2 : 1);
  return out;
}

/// Solves a 3x3 linear system by Gaussian elimination; false when singular.
bool solve3(std::array<std::array<double, 4>, 3> m, std::array<double, 3>& x) {
  for (int column = 0; column < 3; ++column) {
    int pivot = column;
    for (int row = column + 1; row < 3; ++row)
      if (std::fabs(m[row][column]) > std::fabs(m[pivot][column])) pivot = row;
    if (std::fabs(m[pivot][column]) < 1e-12) return false;
    std::swap(m[pivot], m[column]);
    for (int row = 0; row < 3; ++row) {
      if (row == column) continue;
      double factor = m[row][column] / m[column][column];
      for (int k = column; k < 4; ++k) m[row][k] -= factor * m[column][k];
    }
  }
  for (int i = 0; i < 3; ++i) x[i] = m[i][3] / m[i][i];
  return true;
}

}  // namespace

util::Result<CostParameters> load_cost_parameters(const std::string& path) {
  util::Result<toml::table> table = load_toml(path);
  if (!table) return table.error();
  const toml::table* cost = (*table)["cost"].as_table();
  if (!cost) return util::Error{"expected a [cost] table", path, 0};
  CostParameters out;
  out.peak_flops_per_gpu = (*cost)["peak_flops_per_gpu"].value_or(out.peak_flops_per_gpu);
  out.utilization = (*cost)["utilization"].value_or(out.utilization);
  out.step_overhead_seconds = (*cost)["step_overhead_seconds"].value_or(out.step_overhead_seconds);
  out.startup_seconds = (*cost)["startup_seconds"].value_or(out.startup_seconds);
  out.default_vocab = (*cost)["default_vocab"].value_or(out.default_vocab);
  out.forward_share = (*cost)["forward_share"].value_or(out.forward_share);
  if (out.peak_flops_per_gpu <= 0 || out.utilization <= 0 || out.utilization > 1)
    return util::Error{"peak_flops_per_gpu must be positive and utilization in (0, 1]", path, toml_line(*cost)};
  return out;
}

ModelShape model_shape(const std::map<std::string, std::string>& knobs, const CostParameters& parameters) {
  ModelShape s;
  s.layers = number(knobs, "layers");
  s.encoder_layers = number(knobs, "encoder_layers");
  s.hidden = number(knobs, "hidden");
  s.swiglu = number(knobs, "swiglu") != 0;
  s.ffn_hidden = number(knobs, "ffn_hidden", s.swiglu ? std::floor(4 * s.hidden * 2 / 3 / 64) * 64 : 4 * s.hidden);
  s.heads = number(knobs, "heads");
  s.query_groups = number(knobs, "group_query_attention") != 0 ? number(knobs, "query_groups", s.heads) : s.heads;
  s.kv_channels = number(knobs, "kv_channels", s.heads > 0 ? s.hidden / s.heads : 0);
  s.vocab = number(knobs, "vocab", parameters.default_vocab);
  s.seq_length = number(knobs, "seq_length");
  s.decoder_seq_length = number(knobs, "decoder_seq_length", s.seq_length);
  s.global_batch = number(knobs, "global_batch");
  if (s.global_batch == 0) {
    // Megatron's default: one micro batch per data-parallel rank.
    double world = number(knobs, "world_size"), tp = number(knobs, "tp", 1), pp = number(knobs, "pp", 1),
           cp = number(knobs, "cp", 1);
    double dp = world > 0 ? std::max(1.0, std::floor(world / (tp * pp * cp))) : 1;
    s.global_batch = number(knobs, "micro_batch", 1) * dp;
  }
  s.experts = number(knobs, "experts");
  if (s.experts > 0) {
    s.top_k = number(knobs, "top_k", 2);
    s.moe_ffn_hidden = number(knobs, "moe_ffn_hidden", s.ffn_hidden);
    s.shared_expert_hidden = number(knobs, "shared_expert_hidden");
    s.moe_layers = moe_layer_count(knobs, s.layers);
  }
  return s;
}

double active_parameters(const ModelShape& s) {
  const double projections = s.swiglu ? 3 : 2;
  const double attention_width = s.heads * s.kv_channels;
  const double attention = 2 * s.hidden * attention_width + 2 * s.hidden * s.query_groups * s.kv_channels;
  const double dense_mlp = projections * s.hidden * s.ffn_hidden;
  const double moe_mlp = s.top_k * projections * s.hidden * s.moe_ffn_hidden +
                         projections * s.hidden * s.shared_expert_hidden + s.hidden * s.experts;
  const double dense_layers = std::max(0.0, s.layers - s.moe_layers) + s.encoder_layers;
  return (s.layers + s.encoder_layers) * attention + dense_layers * dense_mlp + s.moe_layers * moe_mlp +
         s.vocab * s.hidden;
}

double flops_per_step(const ModelShape& s) {
  const double tokens = s.global_batch * s.seq_length;
  const double attention_width = s.heads * s.kv_channels;
  const double scores = 12 * s.global_batch * attention_width *
                        (s.layers * s.decoder_seq_length * s.decoder_seq_length +
                         s.encoder_layers * s.seq_length * s.seq_length);
  return 6 * active_parameters(s) * tokens + scores;
}

CostEstimate estimate_cost(const TestWorkload& test, const std::map<std::string, std::string>& knobs,
                           const CostParameters& parameters) {
  CostEstimate out;
  const ModelShape shape = model_shape(knobs, parameters);
  out.parameters = active_parameters(shape);
  out.flops_per_step = test.training ? flops_per_step(shape) : 0;
  const Steps steps = steps_of(test, knobs);
  out.steps = steps.train;
  const double gpus = std::max(1, test.gpus);
  const double flops_seconds = out.flops_per_step / (gpus * parameters.peak_flops_per_gpu * parameters.utilization);
  const double train_step = parameters.step_overhead_seconds + flops_seconds;
  const double eval_step = parameters.step_overhead_seconds + parameters.forward_share * flops_seconds;
  const double seconds_per_repeat = test.phases * parameters.startup_seconds + steps.train * train_step +
                                    steps.eval * eval_step;
  out.gpu_seconds = gpus * seconds_per_repeat * std::max(1, test.repeats);
  return out;
}

CostParameters fit_step_overhead(const std::vector<StepSample>& samples, CostParameters parameters) {
  double residual = 0;
  int count = 0;
  for (const StepSample& sample : samples) {
    if (sample.seconds <= 0 || sample.gpus <= 0) continue;
    residual += sample.seconds -
                sample.flops_per_step / (sample.gpus * parameters.peak_flops_per_gpu * parameters.utilization);
    ++count;
  }
  if (count == 0) return parameters;
  parameters.step_overhead_seconds = std::max(0.0, residual / count);
  parameters.fitted_from = "step overhead: mean of " + std::to_string(count) + " measured step times";
  return parameters;
}

CostParameters fit_cost_parameters(const std::vector<SizedRun>& runs, CostParameters parameters) {
  // seconds = startup + steps x overhead + (FLOPs / GPUs) x 1 / (peak x utilization)
  std::array<std::array<double, 4>, 3> normal{};
  int count = 0;
  std::vector<StepSample> per_step;
  for (const SizedRun& run : runs) {
    const double steps = number(run.knobs, "train_iters");
    if (steps <= 0 || run.seconds <= 0 || run.gpus <= 0) continue;
    const double flops = flops_per_step(model_shape(run.knobs, parameters)) * steps / run.gpus;
    const std::array<double, 3> features{1.0, steps, flops};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) normal[i][j] += features[i] * features[j];
      normal[i][3] += features[i] * run.seconds;
    }
    per_step.push_back({flops * run.gpus / steps, run.gpus, (run.seconds - parameters.startup_seconds) / steps,
                        "run"});
    ++count;
  }
  std::array<double, 3> solution{};
  if (count >= 3 && solve3(normal, solution) && solution[0] >= 0 && solution[1] >= 0 && solution[2] > 0) {
    const double utilization = 1.0 / (solution[2] * parameters.peak_flops_per_gpu);
    if (utilization <= 1) {
      parameters.startup_seconds = solution[0];
      parameters.step_overhead_seconds = solution[1];
      parameters.utilization = utilization;
      parameters.fitted_from = "least squares over " + std::to_string(count) + " recorded runs";
      return parameters;
    }
  }
  return fit_step_overhead(per_step, parameters);
}

}  // namespace fastci::planner::workload
