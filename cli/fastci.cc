/// fastci: the companion commands (explain, graph; evidence ingestion).

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "callgraph/dot.h"
#include "cli/evidence_commands.h"
#include "cli/explain.h"
#include "planner/analyze.h"
#include "planner/audit.h"
#include "planner/replay.h"
#include "planner/replay_scale.h"
#include "planner/tune.h"
#include "util/exit_codes.h"
#include "util/file.h"
#include "util/state_dir.h"

namespace {

using namespace fastci;

int explain(const std::string& repository, const std::string& state_dir, const std::string& plan_file,
            const std::string& test_id) {
  std::filesystem::path path = plan_file.empty() ? util::last_plan_file(util::state_dir(repository, state_dir))
                                                 : std::filesystem::path(plan_file);
  auto text = util::read_file(path);
  if (!text.ok()) {
    std::cerr << "fastci explain: " << text.error().to_string()
              << " (run fastci-analyze first, or pass --plan)\n";
    return util::kInputError;
  }
  auto plan = nlohmann::json::parse(*text, nullptr, false);
  if (plan.is_discarded() || !plan.is_object()) {
    std::cerr << "fastci explain: " << path.string() << ": not a plan JSON file\n";
    return util::kInputError;
  }
  std::string answer = cli::explain_test(plan, test_id);
  if (answer.empty()) {
    std::cerr << "fastci explain: " << test_id << " is not in the plan " << path.string() << "\n";
    auto similar = cli::similar_test_ids(plan, test_id.substr(test_id.rfind(':') + 1));
    for (const auto& s : similar) std::cerr << "  did you mean " << s << "\n";
    return util::kNotFound;
  }
  std::cout << answer;
  return util::kSuccess;
}

/// Finds a symbol by id, by qualified name, or by a unique suffix of the qualified name.
std::optional<callgraph::VertexId> find_symbol(const callgraph::CallGraph& graph, const std::string& name) {
  if (auto v = graph.find(name)) return v;
  if (auto v = graph.find("py:" + name)) return v;
  std::optional<callgraph::VertexId> found;
  for (callgraph::VertexId v = 0; v < graph.vertex_count(); ++v) {
    const auto& q = graph.vertex(v).symbol.qualified_name;
    if (q == name || q.ends_with("." + name)) {
      if (found) return std::nullopt;
      found = v;
    }
  }
  return found;
}

int graph_dot(const std::string& repository, const std::string& rev, const std::string& symbol, int depth) {
  planner::AnalyzeOptions options;
  options.repository = repository;
  auto repo = planner::GitRepository::open(repository);
  if (!repo.ok()) {
    std::cerr << "fastci graph: " << repo.error().to_string() << "\n";
    return util::kInputError;
  }
  auto commit = (*repo)->resolve(rev);
  if (!commit.ok()) {
    std::cerr << "fastci graph: " << commit.error().to_string() << "\n";
    return util::kInputError;
  }
  auto cache = planner::open_index_cache(options);
  if (!cache.ok()) {
    std::cerr << "fastci graph: " << cache.error().to_string() << "\n";
    return util::kInputError;
  }
  auto index = planner::index_commit(**repo, *commit, **cache, options);
  if (!index.ok()) {
    std::cerr << "fastci graph: " << index.error().to_string() << "\n";
    return util::kInputError;
  }
  auto vertex = find_symbol(index->graph, symbol);
  if (!vertex) {
    std::cerr << "fastci graph: no unique symbol named '" << symbol << "' at " << rev << "\n";
    return util::kNotFound;
  }
  std::cout << callgraph::neighbourhood_dot(index->graph, *vertex, depth);
  return util::kSuccess;
}

/// Reads `--weights FILE` into `weights`; false (with the reason printed) when it cannot.
bool read_weights(const char* command, const std::string& file, planner::RiskWeights& weights) {
  if (file.empty()) return true;
  auto parsed = planner::RiskWeights::from_file(file);
  if (!parsed.ok()) {
    std::cerr << command << ": --weights: " << parsed.error().to_string() << "\n";
    return false;
  }
  weights = *parsed;
  return true;
}

int replay_history(const std::string& file, const std::vector<std::string>& names, const std::string& state_dir,
                   unsigned threads, const std::string& json_file, const std::string& weights_file,
                   const std::string& audit) {
  std::vector<planner::ReplayStrategy> strategies;
  for (const auto& name : names) {
    auto strategy = planner::replay_strategy_named(name);
    if (!strategy) {
      std::cerr << "fastci replay: unknown strategy '" << name
                << "' (run-all, file-level, coverage-only, fastci-select, fastci-prune, fastci-prioritize, fastci-shrink, tests-fetcher, pytest-testmon)\n";
      return util::kUsageError;
    }
    strategies.push_back(*strategy);
  }
  auto history = planner::load_history(file);
  if (!history.ok()) {
    std::cerr << "fastci replay: " << history.error().to_string() << "\n";
    return util::kInputError;
  }
  planner::ReplayOptions options;
  options.state_dir = state_dir;
  options.threads = threads;
  if (!audit.empty()) {
    auto fraction = planner::parse_audit_fraction(audit);
    if (!fraction.ok()) {
      std::cerr << "fastci replay: " << fraction.error().message << "\n";
      return util::kUsageError;
    }
    options.audit_fraction = *fraction;
  }
  if (!read_weights("fastci replay", weights_file, options.weights)) return util::kInputError;
  auto reports = planner::replay(*history, strategies, options);
  if (!reports.ok()) {
    std::cerr << "fastci replay: " << reports.error().to_string() << "\n";
    return util::kInputError;
  }
  std::cout << planner::format_replay(*history, *reports);
  if (!json_file.empty()) {
    auto written = util::write_file_atomically(json_file, planner::format_replay_json(*history, *reports));
    if (!written.ok()) {
      std::cerr << "fastci replay: --json: " << written.error().to_string() << "\n";
      return util::kInputError;
    }
  }
  return util::kSuccess;
}

int tune_weights(const std::string& file, const std::string& state_dir, unsigned threads, const std::string& out_file) {
  auto history = planner::load_history(file);
  if (!history.ok()) {
    std::cerr << "fastci tune: " << history.error().to_string() << "\n";
    return util::kInputError;
  }
  planner::ReplayOptions options;
  options.state_dir = state_dir;
  options.threads = threads;
  auto result = planner::tune(*history, options);
  if (!result.ok()) {
    std::cerr << "fastci tune: " << result.error().to_string() << "\n";
    return util::kInputError;
  }
  std::cout << planner::format_tune(*result);
  // Too few failures: the defaults are written, so that a pipeline passing --weights keeps working.
  auto written = util::write_file_atomically(out_file, result->weights.to_json() + "\n");
  if (!written.ok()) {
    std::cerr << "fastci tune: --out: " << written.error().to_string() << "\n";
    return util::kInputError;
  }
  std::cout << "\nwrote " << (result->fitted ? "the fitted" : "the default") << " weights to " << out_file
            << " (fastci-analyze --weights " << out_file << ")\n";
  return util::kSuccess;
}

int replay_pytorch_scale(const std::string& folder, std::vector<std::string> jobs, int gpus) {
  auto data = planner::load_pytorch_ci(folder);
  if (!data.ok()) {
    std::cerr << "fastci replay: " << data.error().to_string() << "\n";
    return util::kInputError;
  }
  if (jobs.empty())
    jobs = {"default/default", "linux-jammy-cuda13.0-py3.10-gcc11/default", "linux-jammy-cuda13.0-py3.10-gcc11/distributed",
            "linux-jammy-cuda13.0-py3.10-gcc11/multigpu", "win-vs2022-cpu-py3/default"};
  if (jobs.size() == 1 && jobs[0] == "all") {
    jobs.clear();
    for (const auto& [job, configs] : data->test_times)
      for (const auto& [config, tests] : configs) jobs.push_back(job + "/" + config);
  }
  std::vector<planner::ScaleResult> results;
  for (const auto& name : jobs) {
    // Job names contain '/' themselves ("unit-test / inductor-test"): the config is after the last one.
    std::size_t slash = name.rfind('/');
    if (slash == std::string::npos) {
      std::cerr << "fastci replay: --job wants JOB/CONFIG, got '" << name << "'\n";
      return util::kUsageError;
    }
    auto r = planner::simulate_pytorch_ci(*data, name.substr(0, slash), name.substr(slash + 1), gpus);
    if (!r.ok()) {
      std::cerr << "fastci replay: " << r.error().to_string() << "\n";
      return util::kInputError;
    }
    results.push_back(std::move(*r));
  }
  std::cout << data->tests_of_source.size() << " single-file changes (every source file of the profiled map), "
            << data->map_pairs << " source-test pairs\n\n"
            << planner::format_scale(results);
  return util::kSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fastci: explain plans, inspect the call graph, manage evidence"};
  app.require_subcommand(1);
  std::string repository = ".";
  app.add_option("--repo", repository, "repository")->capture_default_str();

  std::string plan_file, test_id;
  auto* explain_cmd = app.add_subcommand("explain", "why a test was selected, pruned or skipped");
  explain_cmd->add_option("test_id", test_id, "test id as the runner names it")->required();
  explain_cmd->add_option("--plan", plan_file, "plan JSON (default: last-plan.json in the state folder)");
  std::string explain_state_dir;
  explain_cmd->add_option("--state-dir", explain_state_dir, "state folder fastci-analyze wrote (default REPO/.fastci)");

  std::string symbol, rev = "HEAD";
  int depth = 2;
  bool dot = false;
  auto* graph_cmd = app.add_subcommand("graph", "print a symbol's call-graph neighbourhood");
  graph_cmd->add_flag("--dot", dot, "Graphviz DOT output (the only format)");
  graph_cmd->add_option("symbol", symbol, "symbol id, qualified name or unique suffix")->required();
  graph_cmd->add_option("--rev", rev, "commit to index")->capture_default_str();
  graph_cmd->add_option("--depth", depth, "edges to follow each way")->capture_default_str();

  cli::EvidenceCommandOptions evidence;
  std::vector<std::filesystem::path> evidence_files;
  bool quiet = false;
  auto* ingest_cmd = app.add_subcommand("ingest", "read evidence files (coverage, JUnit, traces, fastci JSONL) into the store");
  ingest_cmd->add_option("files", evidence_files, "evidence files")->required()->check(CLI::ExistingFile);
  ingest_cmd->add_option("--format", evidence.format,
                         "auto, fastci-jsonl, coveragepy-sqlite, coveragepy-json, junit, nsys-sqlite, kineto, llvm-cov, gcov-json, lcov")
      ->capture_default_str();
  ingest_cmd->add_option("--store", evidence.store, "store URL (default: [tool.fastci] store, else REPO/.fastci/evidence.db)");
  ingest_cmd->add_option("--root", evidence.root, "path prefix to strip from recorded paths (default: the repository)");
  ingest_cmd->add_option("--run", evidence.run_name, "group these files into one named run (e.g. the CI job id)");
  ingest_cmd->add_option("--commit", evidence.commit, "commit the evidence was recorded at, when the files do not say");
  ingest_cmd->add_option("--runner", evidence.runner, "the machine or CI runner that recorded it");
  ingest_cmd->add_flag("-q,--quiet", quiet, "print only errors");
  auto* evidence_cmd = app.add_subcommand("evidence", "inspect the evidence store");
  evidence_cmd->require_subcommand(1);
  auto* stats_cmd = evidence_cmd->add_subcommand("stats", "counts of runs, tests, coverage, contexts and kernels");
  stats_cmd->add_option("--store", evidence.store, "store URL (default: [tool.fastci] store, else REPO/.fastci/evidence.db)");
  auto* gc_cmd = evidence_cmd->add_subcommand("gc", "delete old runs: keep the newest N and/or those younger than DAYS");
  gc_cmd->add_option("--store", evidence.store, "store URL (default: [tool.fastci] store, else REPO/.fastci/evidence.db)");
  long long keep_runs = -1;
  double older_than_days = -1;
  bool gc_dry_run = false;
  gc_cmd->add_option("--keep-runs", keep_runs, "keep the newest N runs")->check(CLI::NonNegativeNumber);
  gc_cmd->add_option("--older-than", older_than_days, "delete runs ingested more than DAYS ago")
      ->check(CLI::NonNegativeNumber);
  gc_cmd->add_flag("--dry-run", gc_dry_run, "list what would go, delete nothing");

  std::string history_file, state_dir, replay_json;
  std::vector<std::string> strategy_names = {"run-all",      "file-level",   "coverage-only",
                                             "fastci-select", "fastci-prune", "fastci-prioritize", "fastci-shrink"};
  unsigned threads = 2;
  auto* replay_cmd = app.add_subcommand("replay", "re-plan a recorded history with several strategies and compare them");
  auto* history_option =
      replay_cmd->add_option("--history", history_file, "history.json (format fastci-history/1, docs/replay.md)")
          ->check(CLI::ExistingFile);
  std::string pytorch_ci;
  std::vector<std::string> scale_jobs;
  int scale_gpus = 64;
  auto* scale_option = replay_cmd->add_option("--pytorch-ci", pytorch_ci,
                                              "folder with PyTorch's test-times.json and td_heuristic_profiling.json: "
                                              "simulate single-file changes at PyTorch's scale instead")
                           ->check(CLI::ExistingDirectory);
  replay_cmd->add_option("--job", scale_jobs, "with --pytorch-ci: JOB/CONFIG to simulate (repeatable; default: a "
                                              "few, 'all' for every one)");
  replay_cmd->add_option("--gpus", scale_gpus, "with --pytorch-ci: GPUs (runner slots) of the cluster")->capture_default_str();
  history_option->excludes(scale_option);
  replay_cmd->add_option("--strategy", strategy_names, "strategies, in the order to report them")
      ->delimiter(',')
      ->capture_default_str();
  replay_cmd->add_option("--state-dir", state_dir, "index cache folder (default REPOSITORY/.fastci)");
  replay_cmd->add_option("--threads", threads, "parser threads")->capture_default_str();
  replay_cmd->add_option("--json", replay_json, "also write every strategy's totals as JSON to FILE (docs/replay.md)");
  std::string replay_weights, replay_audit;
  replay_cmd->add_option("--audit-skipped", replay_audit,
                         "the fastci strategies also run this share of their skipped tests (e.g. 5%), after the plan "
                         "and never blocking; the replay counts the escapes the audit ran");
  replay_cmd->add_option("--weights", replay_weights, "risk weights JSON for the fastci strategies (written by `fastci tune`)")
      ->check(CLI::ExistingFile);

  std::string tune_history, tune_out = "risk-weights.json";
  auto* tune_cmd = app.add_subcommand("tune", "fit the risk weights on a recorded history (docs/risk.md)");
  tune_cmd->add_option("--history", tune_history, "history.json (format fastci-history/1, docs/replay.md)")
      ->required()
      ->check(CLI::ExistingFile);
  tune_cmd->add_option("--out", tune_out, "where to write the weights JSON that fastci-analyze --weights reads")
      ->capture_default_str();
  tune_cmd->add_option("--state-dir", state_dir, "index cache folder (default REPOSITORY/.fastci)");
  tune_cmd->add_option("--threads", threads, "parser threads")->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? util::kSuccess : util::kUsageError;
  }
  try {
    if (explain_cmd->parsed()) return explain(repository, explain_state_dir, plan_file, test_id);
    if (graph_cmd->parsed()) return graph_dot(repository, rev, symbol, depth);
    evidence.repository = repository;
    if (ingest_cmd->parsed()) return cli::ingest_command(evidence, evidence_files, quiet);
    if (stats_cmd->parsed()) return cli::evidence_stats_command(evidence);
    if (gc_cmd->parsed()) return cli::evidence_gc_command(evidence, keep_runs, older_than_days, gc_dry_run);
    if (replay_cmd->parsed() && !pytorch_ci.empty()) return replay_pytorch_scale(pytorch_ci, scale_jobs, scale_gpus);
    if (replay_cmd->parsed()) {
      if (history_file.empty()) {
        std::cerr << "fastci replay: --history FILE or --pytorch-ci DIR is required\n";
        return util::kUsageError;
      }
      return replay_history(history_file, strategy_names, state_dir, threads, replay_json, replay_weights, replay_audit);
    }
    if (tune_cmd->parsed()) return tune_weights(tune_history, state_dir, threads, tune_out);
  } catch (const std::exception& e) {
    std::cerr << "fastci: internal error: " << e.what() << "\n";
    return util::kInternalError;
  }
  return util::kUsageError;
}
