/// fastci-analyze: the presubmit entry point. Reads base..head, writes plan.json and report.md.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/exit_codes.h"
#include "planner/analyze.h"
#include "planner/plan_json.h"
#include "planner/report.h"
#include "util/file.h"

namespace {

using namespace fastci;

int write_or_complain(const std::filesystem::path& path, const std::string& text) {
  if (auto status = util::write_file_atomically(path, text); !status) {
    std::cerr << "fastci-analyze: " << status.error().to_string() << "\n";
    return cli::kInputError;
  }
  return cli::kSuccess;
}

int run(const planner::AnalyzeOptions& options, const std::string& out, const std::string& report,
        bool quiet) {
  auto plan = planner::analyze(options);
  if (!plan.ok()) {
    std::cerr << "fastci-analyze: " << plan.error().to_string() << "\n";
    return cli::kInputError;
  }
  std::string json = planner::plan_to_json(*plan).dump(2) + "\n";
  if (int rc = write_or_complain(out, json); rc != cli::kSuccess) return rc;
  if (!report.empty())
    if (int rc = write_or_complain(report, planner::render_markdown_report(*plan)); rc != cli::kSuccess)
      return rc;
  // `fastci explain` reads the last plan from the state folder.
  auto state = options.state_dir.empty() ? options.repository / ".fastci" : options.state_dir;
  std::error_code ec;
  std::filesystem::create_directories(state, ec);
  if (!ec) util::write_file_atomically(state / "last-plan.json", json);
  if (!quiet) {
    const auto& s = plan->selection;
    std::fprintf(stderr, "fastci-analyze: %zu changed symbols, %zu of %zu tests selected%s; %.2f s; plan: %s\n",
                 plan->changes.symbols.size(), s.selected.size(), s.selected.size() + s.skipped.size(),
                 plan->widened() ? " (widened: see report)" : "", plan->timing.total_seconds, out.c_str());
  }
  return cli::kSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fastci-analyze: select, explain and order the tests a change needs"};
  planner::AnalyzeOptions options;
  std::string repository = ".", out = "plan.json", report, state_dir;
  bool no_cache = false, quiet = false;
  app.add_option("--repo", repository, "repository to analyse")->capture_default_str();
  app.add_option("--base", options.base, "base ref (the target branch)")->capture_default_str();
  app.add_option("--head", options.head, "head ref (the change)")->capture_default_str();
  app.add_option("--out", out, "plan JSON to write")->capture_default_str();
  app.add_option("--report", report, "Markdown report to write");
  app.add_option("--state-dir", state_dir, "index cache folder (default REPO/.fastci)");
  app.add_option("--threads", options.threads, "parser threads")->capture_default_str();
  app.add_flag("--no-cache", no_cache, "parse every file, ignore and keep no index cache");
  app.add_flag("-q,--quiet", quiet, "print nothing but errors");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? cli::kSuccess : cli::kUsageError;
  }
  options.repository = repository;
  options.state_dir = state_dir;
  options.use_cache = !no_cache;
  options.show_progress = !quiet;
  try {
    return run(options, out, report, quiet);
  } catch (const std::exception& e) {
    std::cerr << "fastci-analyze: internal error: " << e.what() << "\n";
    return cli::kInternalError;
  }
}
