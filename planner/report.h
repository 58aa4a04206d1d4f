#pragma once
/// The Markdown report for a pull-request comment.

#include <string>

#include "planner/plan.h"

namespace fastci::planner {

/// Markdown: summary, changed symbols, selected tests with witness paths, widenings, skipped.
std::string render_markdown_report(const Plan& plan, std::size_t max_listed_skipped = 50);

}  // namespace fastci::planner
