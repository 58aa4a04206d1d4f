#include "callgraph/dot.h"

#include <deque>
#include <map>
#include <set>
#include <sstream>

namespace fastci::callgraph {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

const char* shape_of(const VertexInfo& v) {
  using frontend::SymbolKind;
  if (v.is_test) return "box";
  switch (v.symbol.kind) {
    case SymbolKind::placeholder: return "plaintext";
    case SymbolKind::kernel: return "hexagon";
    case SymbolKind::module: return "folder";
    case SymbolKind::class_: return "component";
    default: return "ellipse";
  }
}

}  // namespace

std::string neighbourhood_dot(const CallGraph& graph, VertexId center, int depth, std::size_t limit) {
  std::map<VertexId, int> distance{{center, 0}};
  std::deque<VertexId> queue{center};
  std::set<std::tuple<VertexId, VertexId, int>> edges;
  while (!queue.empty() && distance.size() < limit) {
    VertexId v = queue.front();
    queue.pop_front();
    if (distance[v] >= depth) continue;
    // A placeholder (ValueError, torch.cat) joins every caller of it: show it, do not walk through it.
    if (v != center && graph.vertex(v).symbol.kind == frontend::SymbolKind::placeholder) continue;
    auto visit = [&](const EdgeInfo& e, VertexId other) {
      edges.insert({e.from, e.to, static_cast<int>(e.kind)});
      if (distance.try_emplace(other, distance[v] + 1).second) queue.push_back(other);
    };
    for (const auto& e : graph.dependencies(v)) visit(e, e.to);
    for (const auto& e : graph.dependents(v)) visit(e, e.from);
  }
  std::ostringstream out;
  out << "digraph fastci {\n  rankdir=LR;\n  node [fontsize=10];\n";
  for (const auto& [v, d] : distance) {
    const auto& info = graph.vertex(v);
    out << "  n" << v << " [label=" << quoted(display_name(info.symbol)) << ", shape=" << shape_of(info)
        << (v == center ? ", style=filled, fillcolor=gold" : "") << "];\n";
  }
  for (const auto& [from, to, kind] : edges) {
    if (!distance.count(from) || !distance.count(to)) continue;
    out << "  n" << from << " -> n" << to << " [label="
        << quoted(frontend::to_string(static_cast<frontend::EdgeKind>(kind))) << "];\n";
  }
  out << "}\n";
  return out.str();
}

std::string paths_dot(const std::vector<std::vector<PathStep>>& paths,
                      const std::vector<std::string>& changed) {
  std::set<std::string> changed_set(changed.begin(), changed.end());
  std::map<std::string, std::string> labels;
  std::set<std::tuple<std::string, std::string, std::string>> edges;
  for (const auto& path : paths)
    for (std::size_t i = 0; i < path.size(); ++i) {
      labels[path[i].symbol_id] = path[i].display;
      if (i + 1 < path.size())
        edges.insert({path[i].symbol_id, path[i + 1].symbol_id, frontend::to_string(path[i].kind_to_next)});
    }
  std::ostringstream out;
  out << "digraph impact {\n  rankdir=LR;\n  node [fontsize=10];\n";
  for (const auto& [id, label] : labels) {
    out << "  " << quoted(id) << " [label=" << quoted(label);
    if (changed_set.count(id)) out << ", style=filled, fillcolor=salmon";
    else if (id.starts_with("test:")) out << ", shape=box, style=filled, fillcolor=lightblue";
    out << "];\n";
  }
  for (const auto& [from, to, kind] : edges)
    out << "  " << quoted(from) << " -> " << quoted(to) << " [label=" << quoted(kind) << "];\n";
  out << "}\n";
  return out.str();
}

}  // namespace fastci::callgraph
