#pragma once
/// The Markdown report for a pull-request comment.

#include <string>

#include "planner/plan.h"

namespace fastci::planner {

/// What a pull-request comment may hold, with room to spare (GitHub rejects more than 65,536).
inline constexpr std::size_t kMaxCommentChars = 60000;

/// Markdown that always fits `max_chars`: headline with counts and predicted cost against
/// running everything, widenings first, changed symbols, tests grouped by file with why, the
/// riskiest tests' witness paths, and what was pruned or skipped by file. Lists are cut (saying
/// how much is left, for plan.json and the HTML report) until the whole fits.
std::string render_markdown_report(const Plan& plan, std::size_t max_chars = kMaxCommentChars);

}  // namespace fastci::planner
