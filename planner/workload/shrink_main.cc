/// fastci-shrink: proposes shrunk workloads for Megatron-LM functional tests (model_config.yaml) and
/// for DeepSpeed unit tests (an inventory of node ids with world_size, and runs recorded at other sizes).

#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "planner/workload/deepspeed_inventory.h"
#include "planner/workload/megatron_plan.h"
#include "planner/workload/propose.h"
#include "planner/workload/report.h"
#include "util/data_dir.h"
#include "util/exit_codes.h"
#include "util/file.h"

namespace workload = fastci::planner::workload;
namespace util = fastci::util;
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

workload::ValidationMode validation_mode(const std::string& mode) {
  return mode == "none"    ? workload::ValidationMode::none
         : mode == "exact" ? workload::ValidationMode::exact
                           : workload::ValidationMode::differential;
}

/// Runs recorded at known sizes, per test id: {"runs": [{"test", "knobs", "covered_symbols",
/// "context_keys", "kernels", "seconds", "gpus"}]}.
fastci::util::Result<std::map<std::string, std::vector<workload::SizedRun>>> read_sized_runs(const std::string& path) {
  auto text = fastci::util::read_file(path);
  if (!text.ok()) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.contains("runs") || !j["runs"].is_array())
    return fastci::util::Error{"expected {\"runs\": [...]}", path};
  std::map<std::string, std::vector<workload::SizedRun>> out;
  try {
    for (const auto& r : j["runs"]) {
      workload::SizedRun run;
      for (const auto& [name, value] : r.at("knobs").items()) run.knobs[name] = value.get<std::string>();
      for (const char* field : {"covered_symbols", "context_keys", "kernels"}) {
        auto& target = std::string(field) == "covered_symbols" ? run.covered_symbols
                       : std::string(field) == "context_keys"  ? run.context_keys
                                                               : run.kernels;
        for (const auto& v : r.value(field, nlohmann::json::array())) target.insert(v.get<std::string>());
      }
      run.seconds = r.value("seconds", 0.0);
      run.gpus = r.value("gpus", 0);
      out[r.at("test").get<std::string>()].push_back(std::move(run));
    }
  } catch (const nlohmann::json::exception& error) {
    return fastci::util::Error{std::string("bad run record: ") + error.what(), path};
  }
  return out;
}

/// Proposals for the DeepSpeed tests of an inventory that have recorded runs.
int propose_deepspeed(const std::string& inventory, const std::string& runs_file, const workload::WorkloadData& data,
                      workload::ValidationMode allowed, const std::string& format) {
  auto tests = workload::read_deepspeed_inventory(inventory, data.catalogue);
  if (!tests) {
    std::cerr << "fastci-shrink: " << tests.error().to_string() << "\n";
    return util::kInputError;
  }
  auto runs = read_sized_runs(runs_file);
  if (!runs) {
    std::cerr << "fastci-shrink: " << runs.error().to_string() << "\n";
    return util::kInputError;
  }
  std::vector<workload::WorkloadProposal> proposals;
  workload::ProposeOptions options;
  options.cost = data.cost;
  options.rules = data.rules;
  for (const auto& test : *tests) {
    auto it = runs->find(test.id);
    if (it == runs->end()) continue;
    proposals.push_back(workload::propose(test, data.catalogue, data.constraints, it->second, allowed, options));
  }
  if (format == "json") {
    nlohmann::json out = {{"proposals", nlohmann::json::array()}};
    for (const auto& proposal : proposals) out["proposals"].push_back(workload::to_json(proposal));
    out["totals"] = workload::totals_json(proposals);
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << workload::markdown_table(proposals);
  }
  return util::kSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Propose shrunk workloads for Megatron-LM functional tests, with reasons, constraints and cost"};
  std::vector<std::string> configs;
  std::string megatron_dir;
  std::string data_dir = util::data_dir(util::workload_data()).string();
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
  std::string deepspeed_inventory, sized_runs;
  app.add_option("--deepspeed-inventory", deepspeed_inventory,
                 "DeepSpeed node ids with world_size (JSONL, as in shared/data/deepspeed) instead of Megatron configs");
  app.add_option("--sized-runs", sized_runs, "runs of those tests recorded at known sizes (JSON)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? util::kSuccess : util::kUsageError;
  }

  if (!deepspeed_inventory.empty()) {
    auto data = workload::load_workload_data(data_dir);
    if (!data) {
      std::cerr << "fastci-shrink: " << data.error().to_string() << "\n";
      return util::kInputError;
    }
    if (sized_runs.empty()) {
      std::cerr << "fastci-shrink: --deepspeed-inventory needs --sized-runs\n";
      return util::kUsageError;
    }
    const workload::ValidationMode allowed = validation_mode(mode);
    return propose_deepspeed(deepspeed_inventory, sized_runs, *data, allowed, format);
  }

  if (configs.empty() && !all) {
    std::cerr << "fastci-shrink: give model_config.yaml files or --all with --megatron-dir\n";
    return util::kUsageError;
  }
  if (megatron_dir.empty()) {
    if (configs.empty()) {
      std::cerr << "fastci-shrink: --all needs --megatron-dir\n";
      return util::kUsageError;
    }
    megatron_dir = megatron_dir_of(configs.front());
  }
  for (const std::string& config : configs) {
    if (!fs::is_regular_file(config)) {
      std::cerr << "fastci-shrink: " << config << ": no such file\n";
      return util::kInputError;
    }
  }
  auto data = workload::load_workload_data(data_dir);
  if (!data) {
    std::cerr << "fastci-shrink: " << data.error().to_string() << "\n";
    return util::kInputError;
  }
  if (startup_seconds >= 0) data->cost.startup_seconds = startup_seconds;
  const workload::ValidationMode allowed = validation_mode(mode);
  auto plan = workload::plan_megatron_suite(megatron_dir, *data, allowed);
  if (!plan) {
    std::cerr << "fastci-shrink: " << plan.error().to_string() << "\n";
    return util::kInputError;
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
        std::cerr << "fastci-shrink: " << config << ": not a test case under " << megatron_dir << "/test_cases\n";
        return util::kInputError;
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
  // Proposals that fail a constraint are part of the answer (the table says which and why).
  int failing = 0;
  for (const auto& proposal : selected) failing += proposal.all_constraints_pass() ? 0 : 1;
  if (failing > 0) std::cerr << "fastci-shrink: " << failing << " of " << selected.size() << " proposals fail a constraint\n";
  return util::kSuccess;
}
