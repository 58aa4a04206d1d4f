/// fastci-analyze: the presubmit entry point. Reads base..head, writes plan.json and report.md.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>

#include "planner/analyze.h"
#include "planner/emit.h"
#include "planner/html_report.h"
#include "planner/plan_json.h"
#include "planner/report.h"
#include "util/exit_codes.h"
#include "util/file.h"
#include "util/state_dir.h"

namespace {

using namespace fastci;

int write_or_complain(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  if (auto status = util::write_file_atomically(path, write); !status) {
    std::cerr << "fastci-analyze: " << status.error().to_string() << "\n";
    return util::kInputError;
  }
  return util::kSuccess;
}

int write_or_complain(const std::filesystem::path& path, const std::string& text) {
  return write_or_complain(path, [&text](std::ostream& out) { out.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

/// Where each optional output goes.
struct Outputs {
  std::string plan = "plan.json";
  std::string report;
  std::string html;
  std::string emit_file;
  std::optional<planner::EmitFormat> emit;
  int shards = 4;
};

int run(const planner::AnalyzeOptions& options, const Outputs& outputs, bool quiet) {
  const std::string& out = outputs.plan;
  const std::string& report = outputs.report;
  auto plan = planner::analyze(options);
  if (!plan.ok()) {
    std::cerr << "fastci-analyze: " << plan.error().to_string() << "\n";
    return util::kInputError;
  }
  // Streamed: the text of a plan of thousands of tests is tens of megabytes.
  if (int rc = write_or_complain(out, [&](std::ostream& o) { planner::write_plan_json(*plan, o); }); rc != util::kSuccess)
    return rc;
  if (!report.empty())
    if (int rc = write_or_complain(report, planner::render_markdown_report(*plan)); rc != util::kSuccess)
      return rc;
  if (!outputs.html.empty())
    if (int rc = write_or_complain(outputs.html, planner::render_html_report(*plan)); rc != util::kSuccess)
      return rc;
  if (outputs.emit) {
    std::string emitted = planner::emit_plan(*plan, *outputs.emit, outputs.shards);
    if (outputs.emit_file.empty() || outputs.emit_file == "-") std::cout << emitted;
    else if (int rc = write_or_complain(outputs.emit_file, emitted); rc != util::kSuccess) return rc;
  }
  // `fastci explain` reads the last plan from the state folder.
  auto state = util::state_dir(options.repository, options.state_dir);
  std::error_code ec;
  std::filesystem::create_directories(state, ec);
  if (!ec) (void)util::copy_file_atomically(out, util::last_plan_file(state));
  if (!quiet) {
    const auto& s = plan->selection;
    std::fprintf(stderr,
                 "fastci-analyze: %zu changed symbols; %zu of %zu tests to run, %zu pruned%s; %.2f s; plan: %s\n",
                 plan->changes.symbols.size(), plan->prioritized.ordered.size(), s.selected.size() + s.skipped.size(),
                 plan->prioritized.pruned.size(), plan->widened() ? " (widened: see report)" : "",
                 plan->timing.total_seconds, out.c_str());
  }
  return util::kSuccess;
}

/// Seconds in "90m", "2h", "3600s" or "3600"; nullopt when malformed.
std::optional<double> parse_duration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(used);
  double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (scale < 0 || value <= 0) return std::nullopt;
  return value * scale;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fastci-analyze: select, explain and order the tests a change needs"};
  planner::AnalyzeOptions options;
  options.free_index = false;  // one analysis, then the process ends
  Outputs outputs;
  std::string repository = ".", state_dir, prune = "safe", budget, weights, emit;
  bool no_cache = false, quiet = false, no_evidence = false;
  app.add_option("--repo", repository, "repository to analyse")->capture_default_str();
  app.add_option("--base", options.base, "base ref (the target branch)")->capture_default_str();
  app.add_option("--head", options.head, "head ref (the change)")->capture_default_str();
  std::string diff = "merge-base";
  app.add_option("--diff", diff,
                 "merge-base: the change is merge-base(base, head)..head, as a pull request shows it; "
                 "tree: everything that differs between the two trees")
      ->check(CLI::IsMember({"merge-base", "tree"}))
      ->capture_default_str();
  app.add_option("--out", outputs.plan, "plan JSON to write")->capture_default_str();
  app.add_option("--report", outputs.report, "Markdown report to write");
  app.add_option("--html", outputs.html, "HTML report with the impact graph to write");
  app.add_option("--emit", emit, "also write the plan as pytest-args, github-matrix or gitlab-pipeline");
  app.add_option("--emit-file", outputs.emit_file, "where --emit writes (default: standard output)");
  app.add_option("--shards", outputs.shards, "parallel jobs per GPU count for --emit")->capture_default_str();
  app.add_option("--evidence", options.evidence_store,
                 "evidence store URL (default: [tool.fastci] store, else REPO/.fastci/evidence.db if present)");
  app.add_flag("--no-evidence", no_evidence, "static selection only");
  app.add_option("--prune", prune, "off, safe or aggressive")->capture_default_str();
  app.add_option("--gpus", options.prioritize.cluster_gpus, "GPUs of the CI cluster, for predictions")
      ->capture_default_str();
  app.add_option("--budget", budget, "time budget for the plan's latency, e.g. 90m, 2h, 3600s");
  app.add_option("--weights", weights, "risk weights JSON written by `fastci tune`");
  std::string audit;
  app.add_option("--audit-skipped", audit,
                 "also run this share of the skipped tests (e.g. 2%), last and never blocking: a failure among "
                 "them is an escape");
  app.add_option("--state-dir", state_dir, "index cache folder (default REPO/.fastci)");
  app.add_option("--threads", options.threads, "parser threads")->capture_default_str();
  app.add_flag("--no-cache", no_cache, "parse every file, ignore and keep no index cache");
  app.add_flag("-q,--quiet", quiet, "print nothing but errors");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? util::kSuccess : util::kUsageError;
  }
  if (prune == "off") options.prioritize.prune = planner::PruneMode::off;
  else if (prune == "safe") options.prioritize.prune = planner::PruneMode::safe;
  else if (prune == "aggressive") options.prioritize.prune = planner::PruneMode::aggressive;
  else {
    std::cerr << "fastci-analyze: --prune: expected off, safe or aggressive, got '" << prune << "'\n";
    return util::kUsageError;
  }
  if (!budget.empty()) {
    auto seconds = parse_duration(budget);
    if (!seconds) {
      std::cerr << "fastci-analyze: --budget: expected a duration like 90m, 2h or 3600s, got '" << budget << "'\n";
      return util::kUsageError;
    }
    options.prioritize.budget_seconds = *seconds;
  }
  if (!weights.empty()) {
    auto parsed = planner::RiskWeights::from_file(weights);
    if (!parsed.ok()) {
      std::cerr << "fastci-analyze: --weights: " << parsed.error().to_string() << "\n";
      return util::kInputError;
    }
    options.prioritize.weights = *parsed;
  }
  if (!audit.empty()) {
    auto fraction = planner::parse_audit_fraction(audit);
    if (!fraction.ok()) {
      std::cerr << "fastci-analyze: " << fraction.error().message << "\n";
      return util::kUsageError;
    }
    options.audit_fraction = *fraction;
  }
  if (!emit.empty()) {
    auto format = planner::emit_format_from_string(emit);
    if (!format.ok()) {
      std::cerr << "fastci-analyze: --emit: " << format.error().message << "\n";
      return util::kUsageError;
    }
    outputs.emit = *format;
  }
  options.diff = diff == "tree" ? planner::DiffMode::tree : planner::DiffMode::merge_base;
  options.use_evidence = !no_evidence;
  options.repository = repository;
  options.state_dir = state_dir;
  options.use_cache = !no_cache;
  options.show_progress = !quiet;
  try {
    return run(options, outputs, quiet);
  } catch (const std::exception& e) {
    std::cerr << "fastci-analyze: internal error: " << e.what() << "\n";
    return util::kInternalError;
  }
}
