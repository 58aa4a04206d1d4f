#pragma once
/// The HTML report: the Markdown report's content plus the impact subgraph drawn by Graphviz.

#include <string>

#include "planner/plan.h"
#include "util/result.h"

namespace fastci::planner {

/// Runs Graphviz `dot -Tsvg` on `dot_text` (through pipes, no shell); fails when dot is missing.
util::Result<std::string> render_svg(const std::string& dot_text);

/// A self-contained HTML page; the graph falls back to DOT text when Graphviz is absent.
std::string render_html_report(const Plan& plan);

}  // namespace fastci::planner
