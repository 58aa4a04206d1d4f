#include "callgraph/graph.h"

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <deque>
#include <unordered_map>

namespace fastci::callgraph {

using frontend::EdgeKind;
using frontend::SymbolKind;

namespace {
// Hundreds of thousands of edges share a few thousand files: an edge keeps its file's index, and
// the edge list is a vector (never an edge removed), not a node per edge.
struct EdgeProperties {
  EdgeKind kind;
  std::uint32_t file;
  int line;
};
using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, VertexInfo,
                                         EdgeProperties, boost::no_property, boost::vecS>;
}  // namespace

struct CallGraph::Impl {
  BoostGraph graph;
  std::unordered_map<std::string, VertexId> by_id;
  std::unordered_map<std::string, std::vector<VertexId>> by_file;
  std::deque<std::string> files;  ///< call-site files, by EdgeProperties::file (a deque: views stay valid)
  std::unordered_map<std::string_view, std::uint32_t> file_index;

  std::uint32_t file_id(const std::string& file) {
    if (auto it = file_index.find(file); it != file_index.end()) return it->second;
    files.push_back(file);
    auto id = static_cast<std::uint32_t>(files.size() - 1);
    file_index.emplace(files.back(), id);
    return id;
  }

  void add_edge(VertexId from, VertexId to, EdgeKind kind, const std::string& file, int line) {
    boost::add_edge(from, to, EdgeProperties{kind, file_id(file), line}, graph);
  }

  VertexId add_vertex(const frontend::Symbol& symbol) {
    auto [it, inserted] = by_id.try_emplace(symbol.id, 0);
    if (!inserted) {
      // A symbol seen again (a header read by several TUs, a placeholder later defined): the
      // definition wins over a placeholder; otherwise the first definition stays.
      auto& existing = graph[it->second].symbol;
      if (existing.kind == SymbolKind::placeholder && symbol.kind != SymbolKind::placeholder) {
        existing = symbol;
        graph[it->second].is_test = symbol.id.starts_with("test:");
        by_file[symbol.file].push_back(it->second);
      }
      return it->second;
    }
    VertexId v = boost::add_vertex(VertexInfo{symbol, symbol.id.starts_with("test:")}, graph);
    it->second = v;
    if (!symbol.file.empty()) by_file[symbol.file].push_back(v);
    return v;
  }

  VertexId vertex_for(const std::string& id) {
    if (auto it = by_id.find(id); it != by_id.end()) return it->second;
    frontend::Symbol placeholder;
    placeholder.id = id;
    placeholder.kind = SymbolKind::placeholder;
    placeholder.qualified_name = id.starts_with("?") ? id.substr(1) : id;
    return add_vertex(placeholder);
  }

  EdgeInfo info(const BoostGraph::edge_descriptor& e) const {
    const auto& p = graph[e];
    return {boost::source(e, graph), boost::target(e, graph), p.kind, files[p.file], p.line};
  }
};

CallGraph::CallGraph() : impl_(std::make_unique<Impl>()) {}
CallGraph::~CallGraph() = default;
CallGraph::CallGraph(CallGraph&&) noexcept = default;
CallGraph& CallGraph::operator=(CallGraph&&) noexcept = default;

CallGraph CallGraph::build(const frontend::RepositoryFacts& facts) {
  CallGraph result;
  Impl& g = *result.impl_;
  for (const auto& file : facts.files)
    for (const auto& symbol : file.symbols) g.add_vertex(symbol);
  for (const auto& file : facts.files) {
    for (const auto& edge : file.edges) {
      VertexId from = g.vertex_for(edge.from);
      VertexId to = g.vertex_for(edge.to);
      if (from == to) continue;
      if (edge.kind == EdgeKind::contains) std::swap(from, to);
      g.add_edge(from, to, edge.kind, edge.file.empty() ? file.path : edge.file, edge.line);
    }
    for (const auto& test : file.tests) {
      // Parametrized node ids share one function symbol; each id is its own test vertex so that
      // selection and witness paths name what the runner runs.
      frontend::Symbol symbol;
      symbol.id = "test:" + test.id;
      symbol.kind = SymbolKind::test;
      symbol.qualified_name = test.id;
      symbol.file = test.file;
      symbol.first_line = symbol.last_line = test.line;
      VertexId t = g.add_vertex(symbol);
      if (!test.symbol.empty())
        g.add_edge(t, g.vertex_for(test.symbol), EdgeKind::call, test.file, test.line);
      for (const auto& fixture : test.fixtures)
        g.add_edge(t, g.vertex_for(fixture), EdgeKind::fixture, test.file, test.line);
    }
  }
  return result;
}

std::size_t CallGraph::vertex_count() const { return boost::num_vertices(impl_->graph); }
std::size_t CallGraph::edge_count() const { return boost::num_edges(impl_->graph); }

std::optional<VertexId> CallGraph::find(std::string_view symbol_id) const {
  auto it = impl_->by_id.find(std::string(symbol_id));
  if (it == impl_->by_id.end()) return std::nullopt;
  return it->second;
}

const VertexInfo& CallGraph::vertex(VertexId id) const { return impl_->graph[id]; }

std::vector<EdgeInfo> CallGraph::dependencies(VertexId id) const {
  std::vector<EdgeInfo> out;
  for (auto [it, end] = boost::out_edges(id, impl_->graph); it != end; ++it)
    out.push_back(impl_->info(*it));
  return out;
}

std::vector<EdgeInfo> CallGraph::dependents(VertexId id) const {
  std::vector<EdgeInfo> out;
  for (auto [it, end] = boost::in_edges(id, impl_->graph); it != end; ++it)
    out.push_back(impl_->info(*it));
  return out;
}

std::vector<VertexId> CallGraph::symbols_in_file(std::string_view file) const {
  auto it = impl_->by_file.find(std::string(file));
  return it == impl_->by_file.end() ? std::vector<VertexId>{} : it->second;
}

}  // namespace fastci::callgraph
