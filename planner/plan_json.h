#pragma once
/// The plan as JSON (schema fastci-plan/1, documented in docs/plan-schema.md).

#include <nlohmann/json.hpp>

#include "planner/plan.h"

namespace fastci::planner {

nlohmann::json plan_to_json(const Plan& plan);

}  // namespace fastci::planner
