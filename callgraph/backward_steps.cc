#include "callgraph/backward_steps.h"

#include <algorithm>

namespace fastci::callgraph {
namespace {

/// A call from a function defined inside a decorator of `definition` (the decorator's wrapper,
/// calling the function the decorator received) to `definition`. Every call of the decorated name
/// reaches the definition itself too (a decorated name keeps its definition beside what the
/// decorator returns), so followed backwards this edge adds only the callers of the *other*
/// functions that decorator wraps: DeepSpeed's `instrument_w_nvtx.wrapped_fn` would make every
/// instrumented function reach every other one's callers.
bool wrapper_calls_wrapped(const CallGraph& graph, const EdgeInfo& edge, const std::vector<std::string_view>& decorators) {
  if (edge.kind != frontend::EdgeKind::call || decorators.empty()) return false;
  const auto& caller = graph.vertex(edge.from).symbol;
  if (caller.kind != frontend::SymbolKind::function && caller.kind != frontend::SymbolKind::method) return false;
  std::string_view name = caller.qualified_name;
  return std::any_of(decorators.begin(), decorators.end(), [&](std::string_view d) {
    return name.size() > d.size() + 1 && name.starts_with(d) && name[d.size()] == '.';
  });
}

}  // namespace

bool python_constructor(const frontend::Symbol& symbol) {
  return symbol.language == frontend::Language::python && symbol.qualified_name.ends_with(".__init__");
}

bool has_resolved_callers(const VertexInfo& vertex, const std::vector<EdgeInfo>& dependents) {
  auto kind = vertex.symbol.kind;
  if (kind != frontend::SymbolKind::function && kind != frontend::SymbolKind::method) return false;
  const bool constructor = python_constructor(vertex.symbol);
  return std::any_of(dependents.begin(), dependents.end(), [&](const EdgeInfo& e) {
    if (constructor && e.kind == frontend::EdgeKind::override_) return false;  // not followed, see below
    switch (e.kind) {
      case frontend::EdgeKind::import:
      case frontend::EdgeKind::contains:
      case frontend::EdgeKind::read:
      case frontend::EdgeKind::name_match: return false;
      default: return true;  // called, overridden (its base's callers), referenced, decorated, a fixture
    }
  });
}

std::vector<std::string_view> decorators_of(const CallGraph& graph, VertexId definition) {
  std::vector<std::string_view> out;
  for (const auto& e : graph.dependencies(definition))
    if (e.kind == frontend::EdgeKind::decorates && !graph.vertex(e.to).symbol.qualified_name.empty())
      out.push_back(graph.vertex(e.to).symbol.qualified_name);
  return out;
}

bool followed_backwards(const CallGraph& graph, const EdgeInfo& edge, bool constructor,
                        const std::vector<std::string_view>& decorators) {
  if (wrapper_calls_wrapped(graph, edge, decorators)) return false;
  return !(constructor && edge.kind == frontend::EdgeKind::override_);
}

BackwardSteps::BackwardSteps(const CallGraph& graph)
    : graph_(graph), steps_(graph.vertex_count()), known_(graph.vertex_count(), 0) {}

const std::vector<BackwardSteps::Step>& BackwardSteps::from(VertexId v) {
  if (known_[v]) return steps_[v];
  known_[v] = 1;
  auto dependents = graph_.dependents(v);
  const bool guess = !has_resolved_callers(graph_.vertex(v), dependents);
  const bool constructor = python_constructor(graph_.vertex(v).symbol);
  auto decorators = decorators_of(graph_, v);
  for (const auto& edge : dependents) {
    if (edge.kind == frontend::EdgeKind::name_match) {
      if (guess) steps_[v].push_back({edge.from, true});
    } else if (followed_backwards(graph_, edge, constructor, decorators)) {
      steps_[v].push_back({edge.from, false});
    }
  }
  return steps_[v];
}

}  // namespace fastci::callgraph
