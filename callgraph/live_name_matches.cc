#include "callgraph/live_name_matches.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <set>

#include "callgraph/backward_steps.h"

namespace fastci::callgraph {
namespace {

/// The definition one level up from a Python symbol, by its id ("py:m.C.f=" -> "py:m.C").
std::optional<VertexId> owner_of(const CallGraph& graph, VertexId v) {
  std::string_view id = graph.vertex(v).symbol.id;
  if (!id.starts_with("py:")) return std::nullopt;
  if (id.ends_with("=")) id.remove_suffix(1);
  auto dot = id.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  return graph.find(id.substr(0, dot));
}

/// A function, a method or a test function (a function pytest runs).
bool is_function(const frontend::Symbol& s) {
  return s.kind == frontend::SymbolKind::function || s.kind == frontend::SymbolKind::method ||
         s.kind == frontend::SymbolKind::test;
}

bool is_placeholder(const CallGraph& graph, VertexId v) { return graph.vertex(v).symbol.id.starts_with("?."); }

/// A Python definition nothing in the graph leads back to (a function stored on an object, an API
/// function, a class defined inside a function): its users are not in view.
bool unknown_users(const CallGraph& graph, BackwardSteps& steps, VertexId v) {
  const auto& vertex = graph.vertex(v);
  if (vertex.symbol.language != frontend::Language::python || vertex.is_test) return false;
  if (vertex.symbol.kind == frontend::SymbolKind::placeholder) return false;
  return steps.from(v).empty();
}

/// Propagates bit masks backwards to a fixed point (name matches as tests_reaching takes them, or
/// none); returns every vertex's mask.
std::vector<std::uint64_t> propagate(const CallGraph& graph, BackwardSteps& steps,
                                     const std::vector<std::pair<VertexId, std::uint64_t>>& start,
                                     bool name_matches) {
  std::vector<std::uint64_t> mask(graph.vertex_count(), 0);
  std::vector<char> queued(graph.vertex_count(), 0);
  std::deque<VertexId> queue;
  for (const auto& [v, bits] : start) {
    mask[v] |= bits;
    if (!queued[v]) queue.push_back(v), queued[v] = 1;
  }
  while (!queue.empty()) {
    VertexId v = queue.front();
    queue.pop_front();
    queued[v] = 0;
    for (const auto& step : steps.from(v)) {
      if ((step.name_match && !name_matches) || (mask[step.from] | mask[v]) == mask[step.from]) continue;
      mask[step.from] |= mask[v];
      if (!queued[step.from]) queue.push_back(step.from), queued[step.from] = 1;
    }
  }
  return mask;
}

}  // namespace

std::optional<VertexId> class_of_member(const CallGraph& graph, VertexId member) {
  const auto& symbol = graph.vertex(member).symbol;
  if (symbol.language != frontend::Language::python) return std::nullopt;
  if (!is_function(symbol) && symbol.kind != frontend::SymbolKind::variable) return std::nullopt;
  auto owner = owner_of(graph, member);
  if (!owner || graph.vertex(*owner).symbol.kind != frontend::SymbolKind::class_) return std::nullopt;
  return owner;
}

std::optional<VertexId> defining_function(const CallGraph& graph, VertexId class_vertex) {
  for (auto v = owner_of(graph, class_vertex); v; v = owner_of(graph, *v)) {
    const auto& symbol = graph.vertex(*v).symbol;
    if (is_function(symbol)) return v;
    if (symbol.kind != frontend::SymbolKind::class_) return std::nullopt;  // a module: defined at its top level
  }
  return std::nullopt;
}

std::vector<VertexId> tests_with_live_name_matches(const CallGraph& graph, const std::vector<std::string>& changed) {
  BackwardSteps steps(graph);
  // 1. What the change reaches by resolved paths, and where a walk from there enters its first name
  // match: a member of a class stepping back to the "?.name" placeholder that unresolved reads and
  // calls of that name share.
  std::vector<std::pair<VertexId, std::uint64_t>> seeds;
  for (const auto& id : changed)
    if (auto v = graph.find(id)) seeds.push_back({*v, 1});
  auto reached = propagate(graph, steps, seeds, false);
  std::map<VertexId, std::set<VertexId>> local;  // defining function -> the placeholders its classes' members enter
  std::vector<std::pair<VertexId, std::uint64_t>> anywhere;  // placeholders entered from other members
  for (VertexId v = 0; v < reached.size(); ++v) {
    if (!reached[v]) continue;
    for (const auto& step : steps.from(v)) {
      if (!step.name_match || !is_placeholder(graph, step.from)) continue;
      auto c = class_of_member(graph, v);
      auto f = c ? defining_function(graph, *c) : std::nullopt;
      if (f) local[*f].insert(step.from);
      else anywhere.push_back({step.from, 1});
    }
  }
  std::set<VertexId> live;
  if (!anywhere.empty()) {
    auto any = propagate(graph, steps, anywhere, true);
    for (VertexId v = 0; v < any.size(); ++v)
      if (any[v] && graph.vertex(v).is_test) live.insert(v);
  }
  // 2. For classes defined in functions, 64 functions at a time, a bit each: the tests that reach the
  // placeholders, and those that reach the function (or code no one is seen to call, which may).
  std::vector<VertexId> functions;
  for (const auto& [f, placeholders] : local) functions.push_back(f);
  for (std::size_t first = 0; first < functions.size(); first += 64) {
    const std::size_t last = std::min(functions.size(), first + 64);
    std::vector<std::pair<VertexId, std::uint64_t>> through, runs;
    for (std::size_t i = first; i < last; ++i) {
      const std::uint64_t bit = std::uint64_t{1} << (i - first);
      for (VertexId p : local[functions[i]]) through.push_back({p, bit});
      runs.push_back({functions[i], bit});
    }
    auto entered = propagate(graph, steps, through, true);
    auto ran = propagate(graph, steps, runs, true);
    std::uint64_t anyone = 0;
    for (VertexId v = 0; v < ran.size(); ++v)
      if (ran[v] && unknown_users(graph, steps, v)) anyone |= ran[v];
    for (VertexId v = 0; v < entered.size(); ++v)
      if (graph.vertex(v).is_test && (entered[v] & (ran[v] | anyone))) live.insert(v);
  }
  return {live.begin(), live.end()};
}

}  // namespace fastci::callgraph
