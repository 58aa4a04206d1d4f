#pragma once
/// `fastci ingest` and `fastci evidence stats`: evidence files into the store, and what it holds.

#include <filesystem>
#include <string>
#include <vector>

namespace fastci::cli {

/// Where the evidence store is and how to tag what is ingested.
struct EvidenceCommandOptions {
  std::filesystem::path repository = ".";
  std::string store;        ///< URL; empty: [tool.fastci] store at HEAD, else REPO/.fastci/evidence.db
  std::string format = "auto";
  std::string root;         ///< path prefix to strip; empty: the repository's absolute path
  std::string run_name;
  std::string commit;
  std::string runner;
};

/// The store URL the options name, as the planner would find it.
std::string evidence_store_url(const EvidenceCommandOptions& options);

/// Ingests each file in its own transaction; prints one line per file. Returns an exit code:
/// success only when every file was read.
int ingest_command(const EvidenceCommandOptions& options, const std::vector<std::filesystem::path>& files,
                   bool quiet);

/// Prints the store's counts. Returns an exit code.
int evidence_stats_command(const EvidenceCommandOptions& options);

/// Deletes runs beyond the newest `keep_runs` and/or older than `older_than_days` (negative: no
/// limit); with `dry_run`, only lists them. Returns an exit code.
int evidence_gc_command(const EvidenceCommandOptions& options, long long keep_runs, double older_than_days,
                        bool dry_run);

}  // namespace fastci::cli
