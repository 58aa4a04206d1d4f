#pragma once
/// Proposals as JSON (for the plan) and as a Markdown table (for docs and PR comments).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/workload/workload.h"

namespace fastci::planner::workload {

/// One proposal with every decision, override, constraint result and the cost before/after.
nlohmann::json to_json(const WorkloadProposal& proposal);
/// Totals over proposals: GPU-hours before, after, saved; tests shrunk per mode.
nlohmann::json totals_json(const std::vector<WorkloadProposal>& proposals);
/// A Markdown table, one row per proposal, and a total row.
std::string markdown_table(const std::vector<WorkloadProposal>& proposals);
/// The changed knobs as "raw old->new" joined by ", " (empty when nothing changed).
std::string changed_knobs_text(const WorkloadProposal& proposal);

}  // namespace fastci::planner::workload
