#pragma once
/// The unified call graph over every symbol of every language, on Boost.Graph.
///
/// Edges point from a symbol to what it depends on ("caller -> callee", "test -> fixture",
/// "binding -> C++ function", "member -> its module or class"). The fact model writes `contains`
/// edges container -> member; the graph reverses them on insertion so that one rule holds for all
/// kinds: a change to X can affect everything that reaches X.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/facts.h"

namespace fastci::callgraph {

/// Dense index of a vertex.
using VertexId = std::size_t;

/// What the graph knows of a vertex: the symbol, or a placeholder for an unresolved name. Handed out
/// by value; `symbol` refers to the facts the graph was built from (or to the graph's own placeholders
/// and test vertices), so it stays valid while both live.
struct VertexInfo {
  const frontend::Symbol& symbol;
  bool is_test = false;  ///< a runnable test (id "test:<runner id>"), not the function behind it
};

/// One dependency edge (from depends on to), as the graph hands it out.
struct EdgeInfo {
  VertexId from = 0;
  VertexId to = 0;
  frontend::EdgeKind kind = frontend::EdgeKind::call;
  std::string_view file;  ///< call-site file; points into the graph, valid while it lives
  int line = 0;
};

/// Symbols plus dependency edges, with lookup by symbol id.
class CallGraph {
 public:
  CallGraph();
  ~CallGraph();
  CallGraph(CallGraph&&) noexcept;
  CallGraph& operator=(CallGraph&&) noexcept;

  /// Builds the graph from linked facts; unresolved "?name" targets become placeholder vertices.
  /// The graph refers to the facts' symbols instead of copying them: `facts` must outlive it, and
  /// its files' symbols must not move (edges may be freed once built: the graph holds its own).
  static CallGraph build(const frontend::RepositoryFacts& facts);
  /// The same for facts the graph is to own (tests, one-off graphs).
  static CallGraph build(frontend::RepositoryFacts&& facts);

  std::size_t vertex_count() const;
  std::size_t edge_count() const;
  std::optional<VertexId> find(std::string_view symbol_id) const;
  VertexInfo vertex(VertexId id) const;
  /// Edges leaving `id` (what it depends on).
  std::vector<EdgeInfo> dependencies(VertexId id) const;
  /// Edges entering `id` (what depends on it).
  std::vector<EdgeInfo> dependents(VertexId id) const;
  /// Every vertex whose symbol lies in `file`.
  std::vector<VertexId> symbols_in_file(std::string_view file) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fastci::callgraph
