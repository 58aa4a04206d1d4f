#pragma once
/// Replay: re-plan every commit of a recorded history with several strategies and score each plan
/// against what running everything found there (docs/replay.md).

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/failure_class.h"
#include "planner/replay_metrics.h"
#include "planner/risk.h"
#include "util/result.h"

namespace fastci::planner {

/// One recorded commit: the change base..commit and the results of running every test at commit.
/// What another tool selected at one commit, recorded by running it there (scripts/record_tests_fetcher.py).
struct RecordedSelection {
  bool all = false;                  ///< it chose to run everything
  std::vector<std::string> targets;  ///< else test files or folders, repository-relative
  std::string reason;                ///< its own words for the choice
};

struct RecordedCommit {
  std::string commit;
  std::string base;
  std::vector<RecordedResult> results;  ///< in the order the run-all ran them
  /// A mutation fault injected into a real commit's changed code (commit = the mutant on top of the
  /// real commit, base = the real commit's base): empty `mutant_of` for real commits.
  std::string mutant_of;
  std::string mutation;                 ///< "file:line operator: original -> replacement"
  std::vector<std::string> killed_by;   ///< tests failing on the mutant that passed on the real commit
  /// Other tools' selections at this commit, by strategy name ("tests-fetcher").
  std::map<std::string, RecordedSelection> selections;
  bool is_mutant() const { return !mutant_of.empty(); }
};

/// A recorded history (history.json, format "fastci-history/1").
struct History {
  std::filesystem::path repository;  ///< the git repository the commits are in
  std::string evidence_store;        ///< URL of evidence recorded before the first commit; may be empty
  int cluster_gpus = 8;
  std::vector<RecordedCommit> commits;
};

/// Reads a history file; paths in it are relative to the file's folder. Errors name file and field.
util::Result<History> load_history(const std::filesystem::path& file);

/// How a strategy picks and orders tests.
enum class ReplayStrategy {
  run_all,           ///< every test, in recorded order
  file_level,        ///< test files whose module imports a changed module (tests_fetcher-style)
  coverage_only,     ///< tests whose recorded coverage touches a changed line (testmon-style)
  fastci_select,     ///< fastci: selection only, discovery order
  fastci_prune,      ///< fastci: selection and equivalent-context pruning, discovery order
  fastci_prioritize, ///< fastci: selection, pruning and risk order
  fastci_shrink,     ///< fastci: all of the above, and tests run at a smaller size with equal evidence
  tests_fetcher,     ///< DeepSpeed's ci/tests_fetcher.py, as recorded at each commit in the history
  pytest_testmon,    ///< pytest-testmon run at each commit as its users run it, as recorded in the history
};

const char* to_string(ReplayStrategy strategy);
std::optional<ReplayStrategy> replay_strategy_named(const std::string& name);

/// A test of a fastci plan as the replay ran it: its recorded id, and what the plan said of it.
struct ReplayedTest {
  std::string id;
  RiskFeatures features;
  double predicted_seconds = 0;  ///< the plan's cost model, not the recorded duration
  int gpus = 1;
  FailureClass lane = FailureClass::none;  ///< known-failing and flaky tests run last
};

/// Scores of one strategy on one commit.
struct ReplayRow {
  std::string commit;
  RunMetrics metrics;
  double analysis_seconds = 0;           ///< time the strategy needed to decide
  std::optional<double> coverage_retention; ///< changed lines covered by the plan / by run-all
  std::string note;                      ///< e.g. why a strategy fell back to run-all
  std::optional<bool> mutant_caught;     ///< mutants with killers: whether the plan runs one of them
  std::size_t pruned = 0;                ///< recorded tests the plan prunes as equivalent to a kept one
  std::vector<ReplayedTest> planned;     ///< fastci strategies: the simulated tests in plan order
  /// The entry's results as scored: failures of known-failing and flaky tests renamed to their
  /// class (not failures), shrunk tests at their smaller cost.
  std::vector<RecordedResult> results;
  /// fastci strategies with --audit-skipped: the skipped tests the plan audits, their cost, the
  /// failures the plan skipped (escapes) and those of them the audit ran.
  std::size_t audit_tests = 0;
  double audit_gpu_hours = 0;
  std::size_t escapes = 0, escapes_audited = 0;
};

/// A strategy over the whole history.
struct ReplayReport {
  ReplayStrategy strategy = ReplayStrategy::run_all;
  std::vector<ReplayRow> rows;
  double audit_fraction = 0;  ///< fastci strategies: the --audit-skipped share they planned with
};

/// Knobs of a replay.
struct ReplayOptions {
  std::filesystem::path state_dir;  ///< index cache; default REPOSITORY/.fastci
  unsigned threads = 2;
  RiskWeights weights = RiskWeights::defaults();  ///< risk model of the fastci strategies
  double audit_fraction = 0;  ///< fastci strategies audit this share of their skipped tests
};

/// Replays every commit with every strategy, in one run so that the numbers compare.
util::Result<std::vector<ReplayReport>> replay(const History& history, const std::vector<ReplayStrategy>& strategies,
                                               const ReplayOptions& options);

/// `value` with `digits` decimals, for the replay tables.
std::string fixed(double value, int digits);

/// Totals and per-commit rows as Markdown tables.
std::string format_replay(const History& history, const std::vector<ReplayReport>& reports);

/// The totals of every strategy as one JSON document, format "fastci-replay/1" (docs/replay.md):
/// latency, GPU-hours, tests and failures over the real commits, mutants caught over the mutants,
/// APFD and APFDc averaged over every commit or mutant whose plan has at least 5 tests and catches a
/// failure, and the mutants' own totals under "on_mutants".
std::string format_replay_json(const History& history, const std::vector<ReplayReport>& reports);

}  // namespace fastci::planner
