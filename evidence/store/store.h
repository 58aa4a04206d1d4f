#pragma once
/// The evidence store: every ingested run's per-test results, coverage, contexts and kernel launches,
/// in SQLite (default, one file per repository) or PostgreSQL (shared by a CI fleet).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// Produces evidence into a sink; the store runs it inside one transaction.
using EvidenceProducer = std::function<util::Status(EvidenceSink& sink)>;

/// How an ingest attaches its evidence to a run and rewrites what the input says.
struct IngestOptions {
  /// Absolute path prefix to strip from file paths (and function names) so they become
  /// repository-relative; empty keeps paths as written.
  std::string root;
  /// Groups several files into one run: every ingest with the same non-empty name adds to it.
  std::string run_name;
  std::string commit;      ///< overrides the run's commit when non-empty
  std::string runner;      ///< overrides the run's runner when non-empty
  std::string started_at;  ///< overrides the run's start time when non-empty
};

/// What one ingest added.
struct IngestResult {
  std::int64_t run_id = 0;
  std::size_t tests = 0;     ///< distinct test ids seen
  std::size_t files = 0;     ///< distinct covered files seen
  std::size_t coverage_rows = 0;  ///< (test, file) coverage records written or merged
  std::size_t contexts = 0;  ///< execution context records seen
  std::size_t kernels = 0;   ///< kernel launch records seen
  std::vector<Warning> warnings;
};

/// One stored run.
struct RunInfo {
  std::int64_t id = 0;
  std::string name;         ///< IngestOptions::run_name, or empty
  Run run;
  std::string ingested_at;  ///< ISO 8601 UTC
  std::int64_t tests = 0;   ///< tests with a result or coverage in this run
};

/// A test that executed some lines of the queried range, in one run.
struct CoveringTest {
  std::string test_id;
  std::int64_t run_id = 0;
  std::string commit;              ///< commit of that run: lines are relative to it
  std::string started_at;          ///< start time of that run
  std::vector<LineRange> lines;    ///< covered lines inside the queried range, sorted, merged
};

/// The coverage of one file by one test in one run.
struct StoredCoverage {
  std::int64_t run_id = 0;
  std::string commit;
  FileCoverage coverage;
};

/// One file a test covered in one run, without its lines.
struct CoveredFile {
  std::int64_t run_id = 0;
  std::string commit;
  std::string path;
};

/// One stored execution context of a test.
struct StoredContext {
  std::string test_id;
  std::int64_t run_id = 0;
  std::string commit;
  std::string key;  ///< ExecutionContext::key() at ingest time
  ExecutionContext context;
};

/// One stored kernel launch configuration of a test.
struct StoredKernel {
  std::string test_id;
  std::int64_t run_id = 0;
  std::string commit;
  KernelLaunch launch;
};

/// A test's result in one run.
struct HistoryEntry {
  std::string test_id;
  std::int64_t run_id = 0;
  std::string commit;
  std::string started_at;
  std::optional<Outcome> outcome;
  std::optional<double> duration_seconds;
  int gpus = 0;
  std::map<std::string, std::string> knobs;
  std::string message;
};

/// Sizes of what the store holds.
struct StoreStats {
  std::int64_t runs = 0;
  std::int64_t tests = 0;          ///< distinct test ids (the empty "outside any test" id excluded)
  std::int64_t files = 0;          ///< distinct file paths
  std::int64_t results = 0;        ///< (run, test) result rows
  std::int64_t coverage_rows = 0;  ///< (run, test, file) coverage rows
  std::int64_t contexts = 0;
  std::int64_t kernels = 0;
  std::int64_t knob_values = 0;
  std::int64_t bytes = 0;          ///< database size on disk
  int schema_version = 0;
  std::string backend;             ///< "sqlite" or "postgresql"
  std::string location;            ///< file path, or the server URL without its password
};

/// An evidence store. Every ingest is one transaction: it adds all of a file or nothing.
class Store {
 public:
  virtual ~Store() = default;

  /// Opens (creating and migrating when needed) the store at `url`: "sqlite:///abs/path",
  /// a plain file path, or "postgresql://..." / "postgres://..." (credentials may also come from
  /// the PG* environment variables). Errors never contain the password.
  static util::Result<std::unique_ptr<Store>> open(const std::string& url);

  /// Where a repository keeps its default store: `<repo>/.fastci/evidence.db`.
  static std::filesystem::path default_path(const std::filesystem::path& repository_root);

  /// Runs `producer` (a reader over one file) into the store as ONE transaction: if it fails, or
  /// the process dies midway, the store is left exactly as it was. `source_format`/`source_file`
  /// fill the run when the producer says nothing about them.
  virtual util::Result<IngestResult> ingest(const EvidenceProducer& producer,
                                            const std::string& source_format,
                                            const std::string& source_file,
                                            const IngestOptions& options = {}) = 0;

  /// Tests (and their runs) whose coverage of `path` intersects `range`, with the covered lines in
  /// it; one entry per (test, run), newest run first. Coverage recorded outside any test (empty
  /// test id, e.g. import time) is left out unless `include_outside_tests`.
  virtual util::Result<std::vector<CoveringTest>> tests_covering(
      const std::string& path, LineRange range, bool include_outside_tests = false) = 0;

  /// Every file a test covered in its most recent run that has coverage for it (all runs if
  /// `all_runs`), for mapping a test's lines to symbols.
  virtual util::Result<std::vector<StoredCoverage>> coverage_of(const std::string& test_id,
                                                                bool all_runs = false) = 0;

  /// Which files a test covered in each run, newest run first, without the lines: cheap enough to
  /// choose among a long history of runs before reading any run's coverage.
  virtual util::Result<std::vector<CoveredFile>> covered_files(const std::string& test_id) = 0;

  /// Execution contexts of one test whose function starts with `function_prefix` (a
  /// "path.py::" prefix selects a file's functions; empty selects all), newest run first.
  virtual util::Result<std::vector<StoredContext>> contexts_of(
      const std::string& test_id, const std::string& function_prefix = {}) = 0;

  /// Execution contexts of every test for functions starting with `function_prefix`: the input
  /// of context-equivalence pruning for a changed symbol.
  virtual util::Result<std::vector<StoredContext>> contexts_for_function(
      const std::string& function_prefix) = 0;

  /// Kernel launch configurations one test made, newest run first.
  virtual util::Result<std::vector<StoredKernel>> kernels_of(const std::string& test_id) = 0;

  /// Tests that launched a kernel whose name starts with `name_prefix`, newest run first.
  virtual util::Result<std::vector<StoredKernel>> tests_launching(const std::string& name_prefix) = 0;

  /// Every distinct kernel name launched, with its launches summed over tests and runs, by name.
  virtual util::Result<std::vector<std::pair<std::string, std::uint64_t>>> kernel_names() = 0;

  /// A test's results in every run, oldest first: outcomes, durations, GPUs, knobs, commits.
  virtual util::Result<std::vector<HistoryEntry>> history(const std::string& test_id) = 0;

  /// Each test's result in its most recent run that recorded an outcome or duration (for cost
  /// and risk models over all tests at once).
  virtual util::Result<std::vector<HistoryEntry>> latest_results() = 0;

  /// Every test id the store knows, sorted (the empty "outside any test" id excluded).
  virtual util::Result<std::vector<std::string>> all_tests() = 0;

  /// Every run, oldest first.
  virtual util::Result<std::vector<RunInfo>> runs() = 0;

  /// Deletes a run and everything recorded in it (one transaction).
  virtual util::Status delete_run(std::int64_t run_id) = 0;

  /// Row counts and size.
  virtual util::Result<StoreStats> stats() = 0;
};

/// Human-readable multi-line summary of stats, for `fastci evidence stats`.
std::string format_stats(const StoreStats& stats);

}  // namespace fastci::evidence
