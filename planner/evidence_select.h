#pragma once
/// Selection with runtime evidence: tests that executed a changed symbol (in any run) are selected
/// with the context they ran it in; statically reached tests whose deciding run (deciding_run.h:
/// the latest complete, passing run at full size) shows, with fresh lines, that they never ran it
/// are skipped; stale, missing or undecidable evidence falls back to the static path.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "evidence/store/store.h"
#include "planner/change_set.h"
#include "planner/deciding_run.h"
#include "planner/equivalence.h"
#include "planner/line_map.h"
#include "planner/select.h"

namespace fastci::planner {

/// What the evidence said about one selected test (inputs of pruning and risk).
struct TestEvidenceSummary {
  bool has_evidence = false;        ///< a run that may narrow exists (deciding_run.h)
  bool native_coverage = false;     ///< that run holds C/C++/CUDA coverage (lcov, gcov, llvm-cov)
  std::string run_commit;           ///< commit of that run
  std::int64_t run_id = 0;
  std::set<ContextPair> pairs;      ///< (changed symbol, context key) pairs it exercised
  std::set<std::string> covered_changed;  ///< changed symbols it executed
  double seconds = 0;               ///< latest duration; 0 when unknown
  int gpus = 0;
  bool failed_recently = false;
  std::vector<bool> recent_failures;  ///< oldest first
};

/// Evidence-refined selection plus per-test evidence.
struct EvidenceSelection {
  Selection selection;
  std::map<std::string, TestEvidenceSummary> evidence;  ///< by test id (selected tests)
  std::size_t symbols_with_evidence = 0;   ///< changed symbols checked against evidence
  std::size_t symbols_stale = 0;           ///< changed symbols whose evidence could not be carried
  std::vector<std::string> notes;          ///< for the report
};

/// Base-side facts of changed files, to find changed symbols' lines at base.
using BaseSymbolLookup = std::function<const frontend::Symbol*(const std::string& symbol_id)>;

/// A changed file's source at base (null when unreadable), to find where definitions' headers end.
using BaseSourceLookup = std::function<const std::string*(const std::string& path)>;

/// The kernels through which alone a changed `__device__` function runs (kernel_evidence.h), empty
/// where host code reaches it.
using KernelCallersLookup = std::function<std::vector<frontend::Symbol>(const std::string& symbol_id)>;

/// Refines a static selection with evidence from `store`.
EvidenceSelection refine_with_evidence(const Selection& static_selection, const ChangeSet& changes,
                                       const BaseSymbolLookup& base_symbol, const BaseSourceLookup& base_source,
                                       evidence::Store& store, LineMapper& lines,
                                       const KernelCallersLookup& kernels_calling = {});

/// "path.py::Qualified.name" as the evidence collectors name a Python function.
std::string evidence_function_name(const frontend::Symbol& symbol);

}  // namespace fastci::planner
