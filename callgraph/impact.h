#pragma once
/// Impact queries: which tests reach a set of changed symbols, and by which path.

#include <cstdint>
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

/// A test and the sources it reaches.
struct TestReach {
  VertexId test;
  std::string test_id;                   ///< runner id (without the "test:" prefix)
  std::vector<std::uint32_t> sources;    ///< indices into the sources asked about, ascending
};

/// For every test reaching any of `sources` by resolved paths (the edges tests_reaching follows but
/// name matches), each source it reaches, not only the nearest: what explains a selection that one
/// change alone would have made. In test-vertex order.
std::vector<TestReach> tests_reached_by_each(const CallGraph& graph, const std::vector<std::string>& sources);

/// The shortest dependency path from `from` to `to`, empty when there is none.
std::vector<PathStep> dependency_path(const CallGraph& graph, VertexId from, VertexId to);

/// "name (file:line)" for reports.
std::string display_name(const frontend::Symbol& symbol);

}  // namespace fastci::callgraph
