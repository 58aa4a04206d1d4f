#pragma once
/// Graphviz DOT of a symbol's neighbourhood: what it depends on and what depends on it.

#include <string>
#include <vector>

#include "callgraph/graph.h"
#include "callgraph/impact.h"

namespace fastci::callgraph {

/// DOT of the vertices within `depth` edges of `center` in both directions (at most `limit`).
std::string neighbourhood_dot(const CallGraph& graph, VertexId center, int depth = 2,
                              std::size_t limit = 200);

/// DOT of a set of witness paths (the impact subgraph of a plan).
std::string paths_dot(const std::vector<std::vector<PathStep>>& paths,
                      const std::vector<std::string>& changed);

}  // namespace fastci::callgraph
