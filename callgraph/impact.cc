#include "callgraph/impact.h"

#include <deque>
#include <limits>

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
    parents[*v] = {kNone, frontend::EdgeKind::call, true, *v, 0};
    queue.push_back(*v);
  }
  std::vector<ImpactHit> hits;
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
      hits.push_back(std::move(hit));
    }
    for (const auto& edge : graph.dependents(v)) {
      auto& p = parents[edge.from];
      if (p.seen) continue;
      p = {v, edge.kind, true, parents[v].source, parents[v].distance + 1};
      queue.push_back(edge.from);
    }
  }
  return hits;
}

std::vector<PathStep> dependency_path(const CallGraph& graph, VertexId from, VertexId to) {
  std::vector<Parent> parents(graph.vertex_count());
  std::deque<VertexId> queue{to};
  parents[to] = {kNone, frontend::EdgeKind::call, true, to, 0};
  while (!queue.empty()) {
    VertexId v = queue.front();
    queue.pop_front();
    if (v == from) return walk(graph, parents, v);
    for (const auto& edge : graph.dependents(v)) {
      auto& p = parents[edge.from];
      if (p.seen) continue;
      p = {v, edge.kind, true, to, parents[v].distance + 1};
      queue.push_back(edge.from);
    }
  }
  return {};
}

}  // namespace fastci::callgraph
