#include "callgraph/impact.h"

#include "callgraph/backward_steps.h"

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
  BackwardSteps steps(graph);
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
      for (const auto& [from, name_match] : steps.from(v)) {
        if (name_match || (mask[from] | mask[v]) == mask[from]) continue;
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
