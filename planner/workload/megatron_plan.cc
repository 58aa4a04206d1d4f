#include "planner/workload/megatron_plan.h"

#include <filesystem>

namespace fastci::planner::workload {
namespace fs = std::filesystem;

util::Result<WorkloadData> load_workload_data(const std::string& data_dir) {
  const fs::path dir(data_dir);
  auto catalogue = Catalogue::load((dir / "knobs.toml").string());
  if (!catalogue) return catalogue.error();
  auto constraints = Constraints::load((dir / "constraints.toml").string());
  if (!constraints) return constraints.error();
  auto cost = load_cost_parameters((dir / "cost.toml").string());
  if (!cost) return cost.error();
  auto rules = load_shrink_rules((dir / "megatron.toml").string());
  if (!rules) return rules.error();
  auto megatron = load_megatron_rules((dir / "megatron.toml").string());
  if (!megatron) return megatron.error();
  return WorkloadData{std::move(*catalogue), std::move(*constraints), *cost, *rules, std::move(*megatron)};
}

std::vector<StepSample> golden_step_samples(const std::string& megatron_dir, const std::vector<TestWorkload>& tests,
                                            const CostParameters& cost) {
  std::vector<StepSample> samples;
  for (const TestWorkload& test : tests) {
    const fs::path case_dir = fs::path(megatron_dir) / "test_cases" / test.id;
    const auto times = read_golden_step_times(case_dir.string());
    if (times.empty()) continue;
    std::map<std::string, std::string> knobs;
    for (const Knob& knob : test.knobs) knobs.emplace(knob.name, knob.value);
    const double flops = flops_per_step(model_shape(knobs, cost));
    for (const auto& [file, seconds] : times)
      samples.push_back({flops, test.gpus, seconds, test.id + "/" + file});
  }
  return samples;
}

namespace {

/// Rules that tie the GPU count to the parallel layout.
bool layout_fits(const TestWorkload& test, const WorkloadData& data) {
  KnobValues values;
  for (const Knob& knob : test.knobs) values.current.emplace(knob.name, knob.value);
  values.facts = test.facts;
  for (const ConstraintResult& result : data.constraints.check(values, data.catalogue))
    if (result.status == ConstraintResult::Status::fail &&
        (result.id == "model_parallel_divides_world" || result.id == "expert_grid_divides_world" ||
         result.id == "global_batch_divisible_by_micro_times_dp"))
      return false;
  return true;
}

/// A case no recipe schedules gets its model's recipe GPUs per node; when its parallel layout does not
/// fit them, the fewest whole nodes that it fits.
void infer_unscheduled_world_size(TestWorkload& test, const WorkloadData& data) {
  if (test.gpus_source.rfind("not scheduled", 0) != 0 || test.gpus <= 0 || layout_fits(test, data)) return;
  const int per_node = test.gpus;
  for (int nodes = 2; nodes <= 256; ++nodes) {
    for (Knob& knob : test.knobs)
      if (knob.name == "world_size") knob.value = std::to_string(nodes * per_node);
    if (!layout_fits(test, data)) continue;
    test.gpus = nodes * per_node;
    test.gpus_source += "; " + std::to_string(nodes) + " nodes: the fewest its parallel layout and batch fit";
    return;
  }
  for (Knob& knob : test.knobs)
    if (knob.name == "world_size") knob.value = std::to_string(per_node);
}

}  // namespace

util::Result<MegatronPlan> plan_megatron_suite(const std::string& megatron_dir, const WorkloadData& data,
                                               ValidationMode allowed) {
  auto suite = read_megatron_suite(megatron_dir, data.catalogue, data.megatron);
  if (!suite) return suite.error();
  MegatronPlan plan;
  plan.tests = std::move(suite->tests);
  plan.problems = std::move(suite->problems);
  for (TestWorkload& test : plan.tests) infer_unscheduled_world_size(test, data);
  plan.cost = fit_step_overhead(golden_step_samples(megatron_dir, plan.tests, data.cost), data.cost);
  ProposeOptions options;
  options.cost = plan.cost;
  options.rules = data.rules;
  for (const TestWorkload& test : plan.tests)
    plan.proposals.push_back(propose(test, data.catalogue, data.constraints, {}, allowed, options));
  return plan;
}

}  // namespace fastci::planner::workload
