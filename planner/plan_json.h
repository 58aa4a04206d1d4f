#pragma once
/// The plan as JSON (schema fastci-plan/1, documented in docs/plan-schema.md).

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "planner/plan.h"

namespace fastci::planner {

/// The plan as a JSON document.
nlohmann::json plan_to_json(const Plan& plan);
/// Writes the text fastci-analyze writes: plan_to_json(plan).dump(2) and a newline, byte for byte,
/// entry by entry, so that a plan of thousands of tests is never held whole (neither document nor text).
void write_plan_json(const Plan& plan, std::ostream& out);
/// write_plan_json's text.
std::string plan_json_text(const Plan& plan);

}  // namespace fastci::planner
