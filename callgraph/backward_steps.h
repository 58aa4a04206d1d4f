#pragma once
/// The rules by which selection walks the call graph backwards, from a changed symbol to the code
/// that depends on it, and a per-vertex cache of the steps they allow.

#include <string_view>
#include <vector>

#include "callgraph/graph.h"

namespace fastci::callgraph {

/// A Python `__init__`: selection does not follow override edges backwards from it (tests_reaching).
bool python_constructor(const frontend::Symbol& symbol);

/// A function or method whose callers the analysis found is reached through them only; one it found
/// no caller of (called on values it cannot type, by name) is reached through every unresolved call
/// of that name. Class attributes and module names always are: fields are read through untyped
/// configs everywhere, beside the reads that resolve.
bool has_resolved_callers(const VertexInfo& vertex, const std::vector<EdgeInfo>& dependents);

/// Qualified names of the decorators applied to a definition (its `decorates` edges).
std::vector<std::string_view> decorators_of(const CallGraph& graph, VertexId definition);

/// Whether selection walks `edge` from its target back to its source, name matches aside;
/// `constructor` and `decorators` describe the target (python_constructor, decorators_of).
bool followed_backwards(const CallGraph& graph, const EdgeInfo& edge, bool constructor,
                        const std::vector<std::string_view>& decorators);

/// The dependents selection may step back to from each vertex, found once per vertex: walks that
/// visit a vertex many times (a bit per source, per class) do not copy its edges each time.
class BackwardSteps {
 public:
  /// One step back: the dependent, and whether the step is a name match (taken only from a vertex
  /// without resolved callers, as tests_reaching takes it).
  struct Step {
    VertexId from;
    bool name_match;
  };
  explicit BackwardSteps(const CallGraph& graph);
  /// The steps back from `v`.
  const std::vector<Step>& from(VertexId v);

 private:
  const CallGraph& graph_;
  std::vector<std::vector<Step>> steps_;
  std::vector<char> known_;
};

}  // namespace fastci::callgraph
