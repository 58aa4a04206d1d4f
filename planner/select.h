#pragma once
/// Selection: which tests a change affects, each with every reason it was selected.

#include <cstdint>
#include <string>
#include <vector>

#include "callgraph/graph.h"
#include "callgraph/impact.h"
#include "frontend/facts.h"
#include "planner/change_set.h"
#include "planner/deciding_run.h"
#include "planner/rules.h"

namespace fastci::planner {

/// One reason a test is in the plan.
struct SelectionReason {
  /// name_match: the only paths pass an unresolved call or read (`x.wait()` on a value of unknown
  /// type) that may reach every attribute of that name; the first thing fresh evidence rules out.
  enum class Kind { static_path, name_match, evidence, rule, own_file, always_run, widening } kind = Kind::static_path;
  std::string text;                          ///< one line for reports
  std::string changed_symbol;                ///< for static_path and evidence
  std::vector<callgraph::PathStep> witness;  ///< test first, changed symbol last
};

/// "`.wait` in f (file:line)": the first name match of a witness, the unresolved call or read a
/// name-match reason goes through.
std::string name_match_step(const std::vector<callgraph::PathStep>& witness);

/// A selected test.
struct SelectedTest {
  frontend::Test test;
  std::vector<SelectionReason> reasons;
  int distance = -1;  ///< shortest call-graph distance to a changed symbol; -1 when not by path
  std::optional<EvidenceRun> evidence_run;  ///< the run whose coverage decided, when one may
  std::string evidence_note;  ///< why no run of the test may narrow, when it has coverage
  /// Every changed symbol it reaches by resolved call paths, not only its reasons' nearest one
  /// (indices into Selection::path_symbols): what explains a plan that one change made.
  std::vector<std::uint32_t> reaches;
};

/// How the reason of a skipped test that imports changed code without a call path begins.
inline constexpr const char* kImportsWithoutPath = "no call path to a changed symbol, though it imports ";

/// A test left out, and why.
struct SkippedTest {
  frontend::Test test;
  std::string reason;
};

/// The outcome of selection.
struct Selection {
  std::vector<SelectedTest> selected;  ///< in discovery order
  std::vector<SkippedTest> skipped;
  std::vector<std::string> path_symbols;  ///< the changed symbols SelectedTest::reaches indexes
};

/// Skipped tests whose file imports a module on a call path to a changed symbol with no call path
/// of its own: where a call resolved only at run time could hide a dependency.
std::size_t skipped_importing_changes(const Selection& selection);

/// How the reason of a skipped test begins whose only paths to the change are name matches into
/// members of classes defined in functions it never runs (callgraph/live_name_matches.h).
inline constexpr const char* kOnlyDeadNameMatches = "its only paths may reach ";

/// Skipped tests whose only paths were name matches on values that cannot be of the class matched.
std::size_t skipped_for_dead_name_matches(const Selection& selection);

/// What selection reads.
struct SelectionInput {
  const ChangeSet* changes = nullptr;
  const callgraph::CallGraph* head_graph = nullptr;
  const callgraph::CallGraph* base_graph = nullptr;  ///< for deleted symbols; may be null
  const std::vector<frontend::Test>* tests = nullptr; ///< every test at head
  const Config* config = nullptr;
};

/// Static selection: call-graph reachability from changed symbols, rules and widenings.
Selection select_tests(const SelectionInput& input);

const char* to_string(SelectionReason::Kind kind);

/// Whether a reason is a call-graph path, which fresh evidence may rule out.
inline bool is_graph_path(SelectionReason::Kind kind) {
  return kind == SelectionReason::Kind::static_path || kind == SelectionReason::Kind::name_match;
}

}  // namespace fastci::planner
