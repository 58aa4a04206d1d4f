/// fastci-shrink: proposes shrunk workloads for Megatron-LM functional tests (model_config.yaml).

#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "planner/workload/megatron_plan.h"
#include "planner/workload/report.h"

namespace workload = fastci::planner::workload;
namespace fs = std::filesystem;

namespace {

/// The Megatron data folder a model_config.yaml lies in: <dir>/test_cases/<model>/<case>/model_config.yaml.
std::string megatron_dir_of(const std::string& config) {
  return fs::weakly_canonical(fs::path(config)).parent_path().parent_path().parent_path().parent_path().string();
}

std::string case_id_of(const std::string& config) {
  const fs::path dir = fs::weakly_canonical(fs::path(config)).parent_path();
  return dir.parent_path().filename().string() + "/" + dir.filename().string();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Propose shrunk workloads for Megatron-LM functional tests, with reasons, constraints and cost"};
  std::vector<std::string> configs;
  std::string megatron_dir;
  std::string data_dir = FASTCI_WORKLOAD_DATA_DIR;
  std::string format = "markdown";
  std::string mode = "differential";
  bool all = false;
  double startup_seconds = -1;
  app.add_option("configs", configs, "model_config.yaml files under <dir>/test_cases/<model>/<case>/");
  app.add_option("--megatron-dir", megatron_dir,
                 "folder holding test_cases/ and recipes/ (default: derived from the first config)");
  app.add_flag("--all", all, "propose for every test case under --megatron-dir");
  app.add_option("--data", data_dir, "folder with knobs.toml, constraints.toml, cost.toml, megatron.toml");
  app.add_option("--format", format, "json or markdown")->check(CLI::IsMember({"json", "markdown"}));
  app.add_option("--mode", mode, "most permissive validation mode: none, exact, differential")
      ->check(CLI::IsMember({"none", "exact", "differential"}));
  app.add_option("--startup-seconds", startup_seconds, "override the cost model's per-phase startup time");
  CLI11_PARSE(app, argc, argv);

  if (configs.empty() && !all) {
    std::cerr << "fastci-shrink: give model_config.yaml files or --all with --megatron-dir\n";
    return 2;
  }
  if (megatron_dir.empty()) {
    if (configs.empty()) {
      std::cerr << "fastci-shrink: --all needs --megatron-dir\n";
      return 2;
    }
    megatron_dir = megatron_dir_of(configs.front());
  }
  for (const std::string& config : configs) {
    if (!fs::is_regular_file(config)) {
      std::cerr << config << ": no such file\n";
      return 1;
    }
  }
  auto data = workload::load_workload_data(data_dir);
  if (!data) {
    std::cerr << "fastci-shrink: " << data.error().to_string() << "\n";
    return 1;
  }
  if (startup_seconds >= 0) data->cost.startup_seconds = startup_seconds;
  const workload::ValidationMode allowed = mode == "none"    ? workload::ValidationMode::none
                                           : mode == "exact" ? workload::ValidationMode::exact
                                                             : workload::ValidationMode::differential;
  auto plan = workload::plan_megatron_suite(megatron_dir, *data, allowed);
  if (!plan) {
    std::cerr << "fastci-shrink: " << plan.error().to_string() << "\n";
    return 1;
  }
  for (const auto& problem : plan->problems) std::cerr << "fastci-shrink: skipped " << problem.to_string() << "\n";

  std::vector<workload::WorkloadProposal> selected;
  if (all) {
    selected = plan->proposals;
  } else {
    for (const std::string& config : configs) {
      const std::string id = case_id_of(config);
      bool found = false;
      for (const auto& proposal : plan->proposals)
        if (proposal.test_id == id) {
          selected.push_back(proposal);
          found = true;
        }
      if (!found) {
        std::cerr << config << ": not a test case under " << megatron_dir << "/test_cases\n";
        return 1;
      }
    }
  }

  if (format == "json") {
    nlohmann::json out;
    out["cost_model"] = {{"peak_flops_per_gpu", plan->cost.peak_flops_per_gpu},
                         {"utilization", plan->cost.utilization},
                         {"step_overhead_seconds", plan->cost.step_overhead_seconds},
                         {"startup_seconds", plan->cost.startup_seconds},
                         {"fitted_from", plan->cost.fitted_from}};
    out["proposals"] = nlohmann::json::array();
    for (const auto& proposal : selected) out["proposals"].push_back(workload::to_json(proposal));
    out["totals"] = workload::totals_json(selected);
    std::vector<workload::WorkloadProposal> release, others;
    for (const auto& proposal : selected)
      (proposal.test_id.find("release") != std::string::npos ? release : others).push_back(proposal);
    out["totals_release"] = workload::totals_json(release);
    out["totals_without_release"] = workload::totals_json(others);
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << workload::markdown_table(selected);
  }
  int failing = 0;
  for (const auto& proposal : selected) failing += proposal.all_constraints_pass() ? 0 : 1;
  return failing == 0 ? 0 : 3;
}
