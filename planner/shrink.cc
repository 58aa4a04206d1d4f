#include "planner/shrink.h"

#include <set>

#include "planner/evidence_select.h"
#include "planner/workload/megatron_plan.h"
#include "planner/workload/propose.h"
#include "util/data_dir.h"

namespace fastci::planner {
namespace {

namespace workload = fastci::planner::workload;

/// Recorded runs of one test as the shrinker reads them: passing runs only, one per run id.
util::Result<std::vector<workload::SizedRun>> sized_runs(const std::string& test_id, evidence::Store& store) {
  auto history = store.history(test_id);
  if (!history.ok()) return history.error();
  std::map<std::int64_t, workload::SizedRun> by_run;
  std::set<int> sizes;
  for (const auto& h : *history) {
    // A failing run says nothing about what the size validates.
    if (h.outcome != evidence::Outcome::passed || h.gpus <= 0) continue;
    auto& run = by_run[h.run_id];
    run.knobs["world_size"] = std::to_string(h.gpus);
    run.gpus = h.gpus;
    run.seconds = h.duration_seconds.value_or(0);
    sizes.insert(h.gpus);
  }
  if (sizes.size() < 2) return std::vector<workload::SizedRun>{};
  auto contexts = store.contexts_of(test_id);
  if (!contexts.ok()) return contexts.error();
  for (const auto& c : *contexts) {
    auto it = by_run.find(c.run_id);
    if (it == by_run.end()) continue;
    it->second.covered_symbols.insert(c.context.function);
    it->second.context_keys.insert(c.context.function + "|" + c.key);
  }
  // The kernel set is part of what a smaller run must keep equal (a size can switch kernels).
  auto kernels = store.kernels_of(test_id);
  if (!kernels.ok()) return kernels.error();
  for (const auto& k : *kernels)
    if (auto it = by_run.find(k.run_id); it != by_run.end()) it->second.kernels.insert(k.launch.name);
  std::vector<workload::SizedRun> out;
  for (auto& [id, run] : by_run)
    if (!run.covered_symbols.empty()) out.push_back(std::move(run));
  return out;
}

}  // namespace

std::set<std::string> shrink_comparison_functions(const ChangeSet& changes) {
  std::set<std::string> out;
  for (const auto& c : changes.symbols) {
    if (c.language != frontend::Language::python) return {};  // C++ is not in the evidence's names
    if (c.kind == frontend::SymbolKind::module) continue;      // import time: the same at every size
    frontend::Symbol symbol;
    symbol.file = c.file;
    symbol.qualified_name = c.qualified_name;
    out.insert(evidence_function_name(symbol));
  }
  return out;
}

util::Result<std::map<std::string, ShrinkDecision>> decide_shrinks(const std::vector<frontend::Test>& tests,
                                                                   evidence::Store& store,
                                                                   const std::set<std::string>& changed_functions) {
  std::map<std::string, ShrinkDecision> out;
  std::optional<workload::WorkloadData> data;
  for (const auto& test : tests) {
    if (test.gpus <= 1) continue;
    auto runs = sized_runs(test.id, store);
    if (!runs.ok()) return runs.error();
    if (runs->empty()) continue;
    if (!data) {
      auto loaded = workload::load_workload_data(util::data_dir(util::workload_data()).string());
      if (!loaded) return loaded.error();
      data = std::move(*loaded);
    }
    workload::TestWorkload w;
    w.id = test.id;
    w.framework = "pytest";
    w.file = test.file;
    w.override_form = workload::OverrideForm::pytest;
    w.training = false;
    w.gpus = test.gpus;
    w.gpus_source = "declared by the test";
    w.knobs.push_back({"world_size", "world_size", std::to_string(test.gpus), frontend::KnobOrigin::attribute,
                       test.file, test.line});
    workload::ProposeOptions options;
    options.cost = data->cost;
    options.rules = data->rules;
    if (!changed_functions.empty()) options.changed_symbols = &changed_functions;
    auto proposal = workload::propose(w, data->catalogue, data->constraints, *runs, workload::ValidationMode::exact,
                                      options);
    const auto* decision = proposal.decision("world_size");
    if (!decision || !decision->changed() || proposal.overrides.empty() || !proposal.all_constraints_pass()) continue;
    ShrinkDecision d;
    d.gpus = std::stoi(decision->proposed);
    d.original_gpus = test.gpus;
    for (const auto& run : *runs) {
      if (run.gpus == d.gpus) d.seconds = run.seconds;
      if (run.gpus == test.gpus) d.original_seconds = run.seconds;
    }
    d.override_text = proposal.overrides.front().text;
    d.mode = workload::to_string(proposal.mode);
    d.reason = "world_size " + decision->original + " -> " + decision->proposed + ": " + decision->reason;
    out[test.id] = std::move(d);
  }
  return out;
}

}  // namespace fastci::planner
