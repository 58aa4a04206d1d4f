#include "callgraph/graph.h"

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>

namespace fastci::callgraph {

using frontend::EdgeKind;
using frontend::SymbolKind;

namespace {
// Hundreds of thousands of edges share a few thousand files: an edge keeps its file's index.
struct EdgeProperties {
  EdgeKind kind;
  std::uint32_t file;
  int line;
};
// The graph never changes once built: compressed rows hold an edge in 24 bytes both ways, where
// adjacency lists took about three times that. A vertex's out-edges keep their order of insertion;
// its in-edges come ordered by their source vertex (then by insertion), which decides ties between
// equally short witness paths.
using BoostGraph = boost::compressed_sparse_row_graph<boost::bidirectionalS, boost::no_property, EdgeProperties,
                                                      boost::no_property, std::uint32_t, std::uint32_t>;
}  // namespace

struct CallGraph::Impl {
  std::optional<frontend::RepositoryFacts> owned;  ///< the facts, when the graph was given them
  std::vector<const frontend::Symbol*> symbols;    ///< by vertex
  std::vector<bool> is_test;                       ///< by vertex
  std::deque<frontend::Symbol> own_symbols;        ///< placeholders and test vertices (a deque: stable)
  std::unordered_map<std::string_view, VertexId> by_id;  ///< keys are the symbols' ids
  std::unordered_map<std::string_view, std::vector<VertexId>> by_file;
  std::deque<std::string> files;  ///< call-site files, by EdgeProperties::file (a deque: views stay valid)
  std::unordered_map<std::string_view, std::uint32_t> file_index;
  BoostGraph graph;

  // Only while building: the edges, in insertion order, before they become compressed rows.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ends;
  std::vector<EdgeProperties> properties;

  std::uint32_t file_id(const std::string& file) {
    if (auto it = file_index.find(file); it != file_index.end()) return it->second;
    files.push_back(file);
    auto id = static_cast<std::uint32_t>(files.size() - 1);
    file_index.emplace(files.back(), id);
    return id;
  }

  void add_edge(VertexId from, VertexId to, EdgeKind kind, const std::string& file, int line) {
    ends.emplace_back(static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to));
    properties.push_back({kind, file_id(file), line});
  }

  VertexId add_vertex(const frontend::Symbol& symbol) {
    auto [it, inserted] = by_id.try_emplace(symbol.id, 0);
    if (!inserted) {
      // A symbol seen again (a header read by several TUs, a placeholder later defined): the
      // definition wins over a placeholder; otherwise the first definition stays.
      const frontend::Symbol*& existing = symbols[it->second];
      if (existing->kind == SymbolKind::placeholder && symbol.kind != SymbolKind::placeholder) {
        existing = &symbol;
        is_test[it->second] = symbol.id.starts_with("test:");
        by_file[symbol.file].push_back(it->second);
      }
      return it->second;
    }
    VertexId v = symbols.size();
    symbols.push_back(&symbol);
    is_test.push_back(symbol.id.starts_with("test:"));
    it->second = v;
    if (!symbol.file.empty()) by_file[symbol.file].push_back(v);
    return v;
  }

  VertexId own_vertex(frontend::Symbol symbol) { return add_vertex(own_symbols.emplace_back(std::move(symbol))); }

  VertexId vertex_for(const std::string& id) {
    if (auto it = by_id.find(id); it != by_id.end()) return it->second;
    frontend::Symbol placeholder;
    placeholder.id = id;
    placeholder.kind = SymbolKind::placeholder;
    placeholder.qualified_name = id.starts_with("?") ? id.substr(1) : id;
    return own_vertex(std::move(placeholder));
  }

  void add_facts(const frontend::RepositoryFacts& facts);

  void compress() {
    graph = BoostGraph(boost::edges_are_unsorted_multi_pass, ends.begin(), ends.end(), properties.begin(),
                       static_cast<std::uint32_t>(symbols.size()));
    std::vector<std::pair<std::uint32_t, std::uint32_t>>().swap(ends);
    std::vector<EdgeProperties>().swap(properties);
  }

  EdgeInfo info(const BoostGraph::edge_descriptor& e) const {
    const auto& p = graph[e];
    return {boost::source(e, graph), boost::target(e, graph), p.kind, files[p.file], p.line};
  }
};

void CallGraph::Impl::add_facts(const frontend::RepositoryFacts& facts) {
  std::size_t edges = 0;
  for (const auto& file : facts.files) {
    edges += file.edges.size();
    for (const auto& test : file.tests) edges += 1 + test.fixtures.size();
  }
  ends.reserve(edges);
  properties.reserve(edges);
  for (const auto& file : facts.files)
    for (const auto& symbol : file.symbols) add_vertex(symbol);
  for (const auto& file : facts.files) {
    for (const auto& edge : file.edges) {
      VertexId from = vertex_for(edge.from);
      VertexId to = vertex_for(edge.to);
      if (from == to) continue;
      if (edge.kind == EdgeKind::contains) std::swap(from, to);
      add_edge(from, to, edge.kind, edge.file.empty() ? file.path : edge.file, edge.line);
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
      VertexId t = own_vertex(std::move(symbol));
      if (!test.symbol.empty()) add_edge(t, vertex_for(test.symbol), EdgeKind::call, test.file, test.line);
      for (const auto& fixture : test.fixtures)
        add_edge(t, vertex_for(fixture), EdgeKind::fixture, test.file, test.line);
    }
  }
  compress();
}

CallGraph::CallGraph() : impl_(std::make_unique<Impl>()) {}
CallGraph::~CallGraph() = default;
CallGraph::CallGraph(CallGraph&&) noexcept = default;
CallGraph& CallGraph::operator=(CallGraph&&) noexcept = default;

CallGraph CallGraph::build(const frontend::RepositoryFacts& facts) {
  CallGraph result;
  result.impl_->add_facts(facts);
  return result;
}

CallGraph CallGraph::build(frontend::RepositoryFacts&& facts) {
  CallGraph result;
  result.impl_->owned = std::move(facts);
  result.impl_->add_facts(*result.impl_->owned);
  return result;
}

std::size_t CallGraph::vertex_count() const { return impl_->symbols.size(); }
std::size_t CallGraph::edge_count() const { return boost::num_edges(impl_->graph); }

std::optional<VertexId> CallGraph::find(std::string_view symbol_id) const {
  auto it = impl_->by_id.find(symbol_id);
  if (it == impl_->by_id.end()) return std::nullopt;
  return it->second;
}

VertexInfo CallGraph::vertex(VertexId id) const { return {*impl_->symbols[id], impl_->is_test[id]}; }

std::vector<EdgeInfo> CallGraph::dependencies(VertexId id) const {
  std::vector<EdgeInfo> out;
  auto v = static_cast<std::uint32_t>(id);
  for (auto [it, end] = boost::out_edges(v, impl_->graph); it != end; ++it) out.push_back(impl_->info(*it));
  return out;
}

std::vector<EdgeInfo> CallGraph::dependents(VertexId id) const {
  std::vector<EdgeInfo> out;
  auto v = static_cast<std::uint32_t>(id);
  for (auto [it, end] = boost::in_edges(v, impl_->graph); it != end; ++it) out.push_back(impl_->info(*it));
  return out;
}

std::vector<VertexId> CallGraph::symbols_in_file(std::string_view file) const {
  auto it = impl_->by_file.find(file);
  return it == impl_->by_file.end() ? std::vector<VertexId>{} : it->second;
}

}  // namespace fastci::callgraph
