#pragma once
/// Shrink proposals for a whole Megatron-LM functional-test suite, with the cost model's per-step
/// overhead fitted to the iteration times recorded in the suite's golden values.

#include <string>
#include <vector>

#include "planner/workload/catalogue.h"
#include "planner/workload/constraints.h"
#include "planner/workload/cost_model.h"
#include "planner/workload/megatron_config.h"
#include "planner/workload/propose.h"
#include "util/result.h"

namespace fastci::planner::workload {

/// The data files of the module (knobs.toml, constraints.toml, cost.toml, megatron.toml), loaded.
struct WorkloadData {
  Catalogue catalogue;
  Constraints constraints;
  CostParameters cost;
  ShrinkRules rules;
  MegatronRunnerRules megatron;
};

/// Loads every data file from `data_dir`; errors name the file and line.
util::Result<WorkloadData> load_workload_data(const std::string& data_dir);

/// Measured step times of the suite's golden values as cost samples (FLOPs from each test's knobs).
std::vector<StepSample> golden_step_samples(const std::string& megatron_dir, const std::vector<TestWorkload>& tests,
                                            const CostParameters& cost);

/// Every test case's proposal.
struct MegatronPlan {
  std::vector<TestWorkload> tests;
  std::vector<WorkloadProposal> proposals;  ///< same order as tests
  CostParameters cost;                      ///< as used (fitted)
  std::vector<util::Error> problems;        ///< test cases that could not be read
};

/// Reads `<megatron_dir>/test_cases` and `recipes`, fits the cost model, proposes for every case.
util::Result<MegatronPlan> plan_megatron_suite(const std::string& megatron_dir, const WorkloadData& data,
                                               ValidationMode allowed);

}  // namespace fastci::planner::workload
