#include "callgraph/impact.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <string_view>

namespace fastci::callgraph {

std::string display_name(const frontend::Symbol& symbol) {
  std::string name = symbol.qualified_name.empty() ? symbol.id : symbol.qualified_name;
  if (symbol.file.empty()) return name;
  return name + " (" + symbol.file + ":" + std::to_string(symbol.first_line) + ")";
}

namespace {

constexpr VertexId kNone = std::numeric_limits<VertexId>::max();

struct Parent {
  VertexId next = kNone;  ///< the vertex one step closer to the change
  frontend::EdgeKind kind = frontend::EdgeKind::call;
  bool seen = false;
  VertexId source = kNone;  ///< the changed symbol this vertex was reached from
  int distance = 0;
  int name_matches = 0;  ///< name-match edges on the way to the change
};

std::vector<PathStep> walk(const CallGraph& graph, const std::vector<Parent>& parents, VertexId v) {
  std::vector<PathStep> path;
  while (v != kNone) {
    const auto& p = parents[v];
    path.push_back({graph.vertex(v).symbol.id, display_name(graph.vertex(v).symbol), p.kind});
    v = p.next;
  }
  return path;
}

/// A function or method whose callers the analysis found is reached through them only; one it found
/// no caller of (called on values it cannot type, by name) is reached through every unresolved call
/// of that name. Class attributes and module names always are: fields are read through untyped
/// configs everywhere, beside the reads that resolve.
/// A Python `__init__`: selection does not follow override edges backwards from it (tests_reaching).
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

/// Qualified names of the decorators applied to a definition (its `decorates` edges).
std::vector<std::string_view> decorators_of(const CallGraph& graph, VertexId definition) {
  std::vector<std::string_view> out;
  for (const auto& e : graph.dependencies(definition))
    if (e.kind == frontend::EdgeKind::decorates && !graph.vertex(e.to).symbol.qualified_name.empty())
      out.push_back(graph.vertex(e.to).symbol.qualified_name);
  return out;
}

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

/// Whether selection walks `edge` from its target back to its source; `constructor` and
/// `decorators` describe the target (see tests_reaching).
bool followed_backwards(const CallGraph& graph, const EdgeInfo& edge, bool constructor,
                        const std::vector<std::string_view>& decorators) {
  if (wrapper_calls_wrapped(graph, edge, decorators)) return false;
  return !(constructor && edge.kind == frontend::EdgeKind::override_);
}

}  // namespace

std::vector<ImpactHit> tests_reaching(const CallGraph& graph, const std::vector<std::string>& changed) {
  std::vector<Parent> parents(graph.vertex_count());
  std::deque<VertexId> queue;
  for (const auto& id : changed) {
    auto v = graph.find(id);
    if (!v || parents[*v].seen) continue;
    parents[*v] = {kNone, frontend::EdgeKind::call, true, *v, 0, 0};
    queue.push_back(*v);
  }
  // Phase k reaches what k name matches (unresolved calls or reads that may go anywhere) lead
  // to: a resolved path always wins over a guessed one, whatever their lengths.
  std::vector<ImpactHit> hits;
  std::vector<std::pair<VertexId, VertexId>> guessed;  // (reached, its name-matching dependent)
  while (!queue.empty()) {
    while (!queue.empty()) {
      VertexId v = queue.front();
      queue.pop_front();
      if (graph.vertex(v).is_test) {
        ImpactHit hit;
        hit.test = v;
        hit.test_id = graph.vertex(v).symbol.id.substr(5);
        hit.changed_symbol = graph.vertex(parents[v].source).symbol.id;
        hit.witness = walk(graph, parents, v);
        hit.distance = parents[v].distance;
        hit.name_matches = parents[v].name_matches;
        hits.push_back(std::move(hit));
      }
      auto dependents = graph.dependents(v);
      bool guess = !has_resolved_callers(graph.vertex(v), dependents);
      auto decorators = decorators_of(graph, v);
      // An override edge into a Python constructor, followed backwards, would say that every call of
      // the base class's `__init__` may run the subclass's. None does but through edges the linker
      // makes already: cooperative `super()` chains (by MRO over every subclass), calls on `self`
      // (virtual calls) and constructing a class of unknown exact type (virtual calls to the
      // subclasses' constructors). Following it made every test constructing any Megatron module
      // reach a changed data-parallel wrapper's `__init__` through `MegatronModule.__init__`.
      const bool constructor = python_constructor(graph.vertex(v).symbol);
      for (const auto& edge : dependents) {
        if (parents[edge.from].seen) continue;
        if (!followed_backwards(graph, edge, constructor, decorators)) continue;
        if (edge.kind == frontend::EdgeKind::name_match) {
          if (guess) guessed.emplace_back(v, edge.from);
          continue;
        }
        parents[edge.from] = {v, edge.kind, true, parents[v].source, parents[v].distance + 1, parents[v].name_matches};
        queue.push_back(edge.from);
      }
    }
    for (const auto& [v, from] : guessed) {
      auto& p = parents[from];
      if (p.seen) continue;
      p = {v, frontend::EdgeKind::name_match, true, parents[v].source, parents[v].distance + 1,
           parents[v].name_matches + 1};
      queue.push_back(from);
    }
    guessed.clear();
  }
  return hits;
}

std::vector<TestReach> tests_reached_by_each(const CallGraph& graph, const std::vector<std::string>& sources) {
  std::map<VertexId, std::vector<std::uint32_t>> reached;
  // 64 sources at a time, one bit each: a vertex is visited again only when it gains a bit, so a
  // batch costs about one walk of what its sources reach, not one per source.
  std::vector<std::uint64_t> mask(graph.vertex_count());
  // The dependents each visited vertex is reached back from, found once for every batch and visit.
  std::vector<std::vector<VertexId>> back(graph.vertex_count());
  std::vector<char> known(graph.vertex_count(), 0);
  auto followed_from = [&](VertexId v) -> const std::vector<VertexId>& {
    if (!known[v]) {
      known[v] = 1;
      const bool constructor = python_constructor(graph.vertex(v).symbol);
      auto decorators = decorators_of(graph, v);
      for (const auto& edge : graph.dependents(v))
        if (edge.kind != frontend::EdgeKind::name_match && followed_backwards(graph, edge, constructor, decorators))
          back[v].push_back(edge.from);
    }
    return back[v];
  };
  for (std::size_t first = 0; first < sources.size(); first += 64) {
    std::fill(mask.begin(), mask.end(), 0);
    std::vector<char> queued(graph.vertex_count(), 0);
    std::deque<VertexId> queue;
    const std::size_t last = std::min(sources.size(), first + 64);
    for (std::size_t i = first; i < last; ++i)
      if (auto v = graph.find(sources[i])) {
        mask[*v] |= std::uint64_t{1} << (i - first);
        if (!queued[*v]) queue.push_back(*v), queued[*v] = 1;
      }
    while (!queue.empty()) {
      VertexId v = queue.front();
      queue.pop_front();
      queued[v] = 0;
      for (VertexId from : followed_from(v)) {
        if ((mask[from] | mask[v]) == mask[from]) continue;
        mask[from] |= mask[v];
        if (!queued[from]) queue.push_back(from), queued[from] = 1;
      }
    }
    for (VertexId v = 0; v < mask.size(); ++v) {
      if (!mask[v] || !graph.vertex(v).is_test) continue;
      auto& out = reached[v];
      for (std::size_t i = first; i < last; ++i)
        if (mask[v] >> (i - first) & 1) out.push_back(static_cast<std::uint32_t>(i));
    }
  }
  std::vector<TestReach> out;
  for (auto& [v, indices] : reached) out.push_back({v, graph.vertex(v).symbol.id.substr(5), std::move(indices)});
  return out;
}

std::vector<PathStep> dependency_path(const CallGraph& graph, VertexId from, VertexId to) {
  std::vector<Parent> parents(graph.vertex_count());
  std::deque<VertexId> queue{to};
  parents[to] = {kNone, frontend::EdgeKind::call, true, to, 0, 0};
  while (!queue.empty()) {
    VertexId v = queue.front();
    queue.pop_front();
    if (v == from) return walk(graph, parents, v);
    for (const auto& edge : graph.dependents(v)) {
      auto& p = parents[edge.from];
      if (p.seen) continue;
      p = {v, edge.kind, true, to, parents[v].distance + 1, 0};
      queue.push_back(edge.from);
    }
  }
  return {};
}

}  // namespace fastci::callgraph
