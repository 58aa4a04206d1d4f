#pragma once
/// Impact queries: which tests reach a set of changed symbols, and by which path.

#include <string>
#include <vector>

#include "callgraph/graph.h"

namespace fastci::callgraph {

/// One step of a witness path: a symbol and the edge kind that led from it to the next step.
struct PathStep {
  std::string symbol_id;
  std::string display;  ///< qualified name, file:line
  frontend::EdgeKind kind_to_next = frontend::EdgeKind::call;
};

/// A test that depends, transitively, on a changed symbol.
struct ImpactHit {
  VertexId test;
  std::string test_id;           ///< runner id (without the "test:" prefix)
  std::string changed_symbol;    ///< the changed symbol the witness ends at
  std::vector<PathStep> witness; ///< test first, changed symbol last; a shortest path
  int distance = 0;              ///< edges on the witness path
  /// Name-match edges on it (unresolved calls or reads that may reach any attribute of the name);
  /// the witness has as few as any path has.
  int name_matches = 0;
};

/// Reverse reachability from `changed` (symbol ids; unknown ids are ignored) to every test,
/// with one witness path per test: the fewest name matches, then the fewest edges. Phased
/// multi-source BFS: O(V + E).
std::vector<ImpactHit> tests_reaching(const CallGraph& graph, const std::vector<std::string>& changed);

/// The shortest dependency path from `from` to `to`, empty when there is none.
std::vector<PathStep> dependency_path(const CallGraph& graph, VertexId from, VertexId to);

/// "name (file:line)" for reports.
std::string display_name(const frontend::Symbol& symbol);

}  // namespace fastci::callgraph
