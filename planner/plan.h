#pragma once
/// The plan: what to run, in what order, and why; plus what was left out and why.

#include <string>
#include <vector>

#include "frontend/facts.h"
#include "planner/audit.h"
#include "planner/change_set.h"
#include "planner/prioritize.h"
#include "planner/select.h"

namespace fastci::planner {

/// Version of the plan JSON schema (docs/plan-schema.md).
inline constexpr const char* kPlanSchema = "fastci-plan/1";

/// Timing of the analysis, for the plan's summary and benchmarks.
struct AnalysisTiming {
  double index_seconds = 0;
  double link_seconds = 0;
  double native_seconds = 0;  ///< C++/CUDA units (Clang, or their cached facts) and Python-to-binding links
  double select_seconds = 0;
  double total_seconds = 0;
  std::size_t files_indexed = 0;
  std::size_t files_parsed = 0;  ///< not served by the index cache
  bool linked_from_cache = false;  ///< the head tree was analysed before: neither read nor linked again
  bool linked_from_base = false;   ///< the base tree was, and the change moves only lines the linker reads
  std::size_t native_units = 0;         ///< C++/CUDA translation units indexed
  std::size_t native_units_parsed = 0;  ///< of them parsed by Clang (not cached)
  std::size_t python_native_links = 0;  ///< Python calls linked to bound C++ functions
};

/// A CPU-only check that the tests importing changed imports still collect: an ImportError
/// shows in seconds without a GPU run.
struct CollectionCheck {
  std::vector<std::string> files;    ///< test files, sorted
  std::vector<std::string> reasons;  ///< "file:line imports ..." per changed import
  std::vector<std::string> command() const;
};

/// Everything fastci-analyze decided for one change.
struct Plan {
  std::string repository;
  std::string base_ref_commit;  ///< what --base resolved to; changes.base is where the diff starts
  std::string diff_mode;        ///< "merge-base" or "tree"
  ChangeSet changes;
  Selection selection;
  std::vector<frontend::Diagnostic> diagnostics;  ///< problems met while indexing
  AnalysisTiming timing;
  std::size_t symbols = 0, edges = 0;             ///< size of the head call graph
  std::string config_source;
  Prioritized prioritized;           ///< ordered tests, pruned tests, budget, prediction
  PrioritizeOptions options;         ///< how it was prioritized
  std::string evidence_store;        ///< where evidence came from; empty when none was used
  std::vector<std::string> notes;    ///< what the report should tell about evidence and pruning
  std::vector<CollectionCheck> collection_checks;  ///< import-time checks, 0 GPUs
  double audit_fraction = 0;         ///< share of skipped tests sampled for the audit
  std::vector<AuditEntry> audit;     ///< skipped tests run last, never blocking: a failure is an escape

  bool widened() const { return !changes.widenings.empty(); }
  /// Tests discovered at head, selected or skipped.
  std::size_t tests_total() const { return selection.selected.size() + selection.skipped.size(); }
  /// Why the plan runs every test it knows, in one line; empty when it does not. Running everything is
  /// a failure to explain (the first widening, or that every test reaches a change), never a default.
  std::string why_every_test() const;
  /// What selected four in five tests or more (when every test does not run), in one line: the
  /// changed symbols and unresolved reads most of them go through; empty otherwise.
  std::string why_most_tests() const;
  /// Plans of fewer tests are not explained as "most tests" (a 3-of-3 plan is no finding).
  static constexpr std::size_t kMostTestsAtLeast = 10;
};

/// pytest arguments that run `entries` the way the plan says: once fastci's plugin where a
/// workload override needs it, every override, then the ids. plan.json and every emitter use it.
std::vector<std::string> pytest_arguments(const std::vector<const PlanEntry*>& entries);

/// The command that runs one planned test, its overrides included.
std::vector<std::string> entry_command(const PlanEntry& entry);

}  // namespace fastci::planner
