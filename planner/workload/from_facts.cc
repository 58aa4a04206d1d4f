#include "planner/workload/from_facts.h"

#include <map>

#include "planner/workload/scope.h"

namespace fastci::planner::workload {

std::vector<TestWorkload> workloads_from_facts(const std::vector<frontend::Test>& tests, const Catalogue& catalogue) {
  std::vector<TestWorkload> out;
  for (const frontend::Test& test : tests) {
    TestWorkload workload;
    workload.id = test.id;
    workload.framework = "pytest";
    workload.file = test.file;
    workload.override_form = OverrideForm::pytest;
    workload.gpus = test.gpus;
    workload.gpus_source = test.gpus > 0 ? "declared by the test" : "not declared";
    workload.training = false;
    for (const frontend::WorkloadKnob& knob : test.knobs) {
      const std::string name = catalogue.canonical(knob.name).value_or(knob.name);
      workload.knobs.push_back({name, knob.name, knob.value, knob.origin, knob.file, knob.line});
      // pytest takes an override of the world size only (fastci_pytest --fastci-world-size); values
      // written in the test's body or parametrize have no runner-side override
      if (name != "world_size") workload.blocked[name] = "no runner override for a value written in the test";
    }
    out.push_back(std::move(workload));
  }
  // Parametrizations of one function form a family: what they vary is what the function tests.
  std::map<std::string, std::vector<size_t>> families;
  for (size_t i = 0; i < tests.size(); ++i) families[tests[i].symbol.empty() ? tests[i].id : tests[i].symbol].push_back(i);
  for (const auto& [symbol, members] : families) {
    if (members.size() < 2) continue;
    std::vector<TestWorkload> family;
    for (size_t i : members) family.push_back(out[i]);
    auto varied = varied_knobs(family, catalogue);
    for (size_t i : members)
      if (auto found = varied.find(out[i].id); found != varied.end()) out[i].varied_scope = found->second;
  }
  return out;
}

}  // namespace fastci::planner::workload
