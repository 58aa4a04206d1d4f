#pragma once
/// fastci-analyze end to end: refs -> diff -> index -> change set -> selection -> plan.

#include <filesystem>
#include <memory>
#include <string>

#include "callgraph/graph.h"
#include "callgraph/index.h"
#include "planner/git_repository.h"
#include "planner/plan.h"
#include "planner/prioritize.h"
#include "planner/rules.h"
#include "util/result.h"

namespace fastci::planner {

/// What fastci-analyze was asked to do.
/// What the change is: a pull request's own commits (from where it left the target branch), or
/// whatever differs between the two trees.
enum class DiffMode { merge_base, tree };

/// "merge-base" or "tree".
const char* to_string(DiffMode mode);

struct AnalyzeOptions {
  std::filesystem::path repository = ".";
  std::string base = "HEAD~1";
  std::string head = "HEAD";
  /// merge_base: the change is merge-base(base, head)..head, so a branch behind its target does
  /// not carry the target's newer commits into its change set.
  DiffMode diff = DiffMode::merge_base;
  std::filesystem::path state_dir;  ///< index cache folder; default <repository>/.fastci
  bool use_cache = true;
  unsigned threads = 2;
  bool show_progress = true;
  /// Evidence store URL; empty: the configured store, else REPO/.fastci/evidence.db if it exists.
  std::string evidence_store;
  bool use_evidence = true;
  bool shrink = true;  ///< run tests at a smaller size where the evidence shows the same behaviour
  PrioritizeOptions prioritize;
  double audit_fraction = 0;  ///< share of the skipped tests to run anyway as an audit (planner/audit.h)
  /// false where the process ends after this analysis: the indexed commits (a gigabyte of facts and
  /// graph on Megatron-LM) are left to the exit instead of freed, which cost a tenth of a warm run.
  bool free_index = true;
  /// Linked trees the index cache keeps: a replay keeps every real commit's, so that each of its
  /// mutants is planned from its commit's linked facts (callgraph::IndexOptions::neighbor).
  int linked_trees_kept = 4;
};

/// The indexed state of one commit: linked facts and their call graph.
struct CommitIndex {
  std::string commit;
  callgraph::IndexResult index;
  callgraph::CallGraph graph;
  double seconds = 0;  ///< how long reading, linking and building it took
};

/// Opens the index cache for a repository (a disabled one when `use_cache` is false).
util::Result<std::unique_ptr<callgraph::IndexCache>> open_index_cache(const AnalyzeOptions& options);

/// Indexes every source file of `commit` (read from git objects, never from the work tree).
/// `neighbor`: a commit analysed before whose linked facts may serve with lines moved (the base
/// of the change; callgraph::IndexOptions::neighbor), or empty.
util::Result<CommitIndex> index_commit(const GitRepository& repo, const std::string& commit,
                                       callgraph::IndexCache& cache, const AnalyzeOptions& options,
                                       const std::string& neighbor = {});

/// Reads the repository configuration at `commit`: fastci.toml, else pyproject.toml [tool.fastci].
util::Result<Config> load_config(const GitRepository& repo, const std::string& commit);

/// Runs the whole analysis.
util::Result<Plan> analyze(const AnalyzeOptions& options);

/// How one plan orders and cuts the selection: what fastci's strategies of a replay differ in.
struct PlanVariant {
  PruneMode prune = PruneMode::safe;
  bool order_by_risk = true;
  bool shrink = true;
};

/// Plans of one change, one per variant (in order): indexing, selection and evidence are done once,
/// each variant only shrinks, prunes and orders. Each plan is what analyze() gives with `options`
/// changed by its variant; its timing counts the shared work and its own. `head`, when given, is the
/// head commit already indexed (a replay's file-level baseline indexed it too): used instead of
/// indexing it again, its indexing time counted as if it had been.
util::Result<std::vector<Plan>> analyze_variants(const AnalyzeOptions& options, const std::vector<PlanVariant>& variants,
                                                 const CommitIndex* head = nullptr);

}  // namespace fastci::planner
