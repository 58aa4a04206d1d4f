#include "cli/evidence_commands.h"

#include <ctime>
#include <iostream>

#include "evidence/kernel_name.h"
#include "evidence/store/ingest_files.h"
#include "evidence/store/retention.h"
#include "evidence/store/sql_connection.h"
#include "evidence/store/store.h"
#include "planner/analyze.h"
#include "planner/git_repository.h"
#include "util/exit_codes.h"

namespace fastci::cli {

std::string evidence_store_url(const EvidenceCommandOptions& options) {
  if (!options.store.empty()) return options.store;
  // The same store fastci-analyze reads: the configured one, else the default file.
  if (auto repo = planner::GitRepository::open(options.repository); repo.ok())
    if (auto head = (*repo)->resolve("HEAD"); head.ok())
      if (auto config = planner::load_config(**repo, *head); config.ok() && !config->store.empty())
        return config->store;
  return "sqlite://" + evidence::Store::default_path(options.repository).string();
}

namespace {

util::Result<std::unique_ptr<evidence::Store>> open_store(const std::string& url) {
  if (url.starts_with("sqlite://")) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(url.substr(9)).parent_path(), ec);
  }
  return evidence::Store::open(url);
}

}  // namespace

int ingest_command(const EvidenceCommandOptions& options, const std::vector<std::filesystem::path>& files,
                   bool quiet) {
  auto store = open_store(evidence_store_url(options));
  if (!store.ok()) {
    std::cerr << "fastci ingest: " << store.error().to_string() << "\n";
    return util::kInputError;
  }
  evidence::IngestOptions ingest;
  std::error_code ec;
  ingest.root = options.root.empty() ? std::filesystem::absolute(options.repository, ec).lexically_normal().string()
                                     : options.root;
  if (!ingest.root.empty() && ingest.root.back() != '/') ingest.root += '/';
  ingest.run_name = options.run_name;
  ingest.commit = options.commit;
  ingest.runner = options.runner;
  auto summary = evidence::ingest_files(**store, files, options.format, ingest);
  if (!summary.ok()) {
    std::cerr << "fastci ingest: " << summary.error().to_string() << "\n";
    return util::kUsageError;
  }
  std::string text = evidence::format_summary(*summary);
  if (summary->failed() > 0) std::cerr << text;
  else if (!quiet) std::cout << text;
  return summary->failed() > 0 ? util::kInputError : util::kSuccess;
}

int evidence_stats_command(const EvidenceCommandOptions& options) {
  const std::string url = evidence_store_url(options);
  auto store = open_store(url);
  if (!store.ok()) {
    std::cerr << "fastci evidence stats: " << store.error().to_string() << "\n";
    return util::kInputError;
  }
  auto stats = (*store)->stats();
  if (!stats.ok()) {
    std::cerr << "fastci evidence stats: " << stats.error().to_string() << "\n";
    return util::kInputError;
  }
  std::cout << "store: " << evidence::redact_url(url) << "\n" << evidence::format_stats(*stats);
  if (stats->kernels > 0) {
    auto names = (*store)->kernel_names();
    if (!names.ok()) {
      std::cerr << "fastci evidence stats: " << names.error().to_string() << "\n";
      return util::kInputError;
    }
    std::cout << evidence::format_kernel_origins(*names);
  }
  return util::kSuccess;
}

int evidence_gc_command(const EvidenceCommandOptions& options, long long keep_runs, double older_than_days,
                        bool dry_run) {
  evidence::RetentionPolicy policy;
  if (keep_runs >= 0) policy.keep_runs = keep_runs;
  if (older_than_days >= 0) policy.older_than_days = older_than_days;
  if (!policy.keep_runs && !policy.older_than_days) {
    std::cerr << "fastci evidence gc: give --keep-runs N and/or --older-than DAYS\n";
    return util::kUsageError;
  }
  const std::string url = evidence_store_url(options);
  auto store = open_store(url);
  if (!store.ok()) {
    std::cerr << "fastci evidence gc: " << store.error().to_string() << "\n";
    return util::kInputError;
  }
  auto gc = evidence::collect_garbage(**store, policy, std::time(nullptr), dry_run);
  if (!gc.ok()) {
    std::cerr << "fastci evidence gc: " << gc.error().to_string() << "\n";
    return util::kInputError;
  }
  std::cout << "store: " << evidence::redact_url(url) << "\n"
            << (dry_run ? "would delete " : "deleted ") << gc->deleted.size() << " of " << gc->runs << " runs\n";
  return util::kSuccess;
}

}  // namespace fastci::cli
