#pragma once
/// Workloads from the frontends' test facts (pytest parametrize values, constructor kwargs, markers).

#include <vector>

#include "frontend/facts.h"
#include "planner/workload/catalogue.h"
#include "planner/workload/workload.h"

namespace fastci::planner::workload {

/// One TestWorkload per frontend test: knobs renamed to catalogue names, GPUs from the declared count,
/// and knobs varied across the parametrizations of one test function (same Test::symbol) in scope.
std::vector<TestWorkload> workloads_from_facts(const std::vector<frontend::Test>& tests, const Catalogue& catalogue);

}  // namespace fastci::planner::workload
