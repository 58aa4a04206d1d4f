#include "planner/workload/workload.h"

namespace fastci::planner::workload {

bool WorkloadProposal::all_constraints_pass() const {
  for (const ConstraintResult& result : constraints)
    if (result.status == ConstraintResult::Status::fail) return false;
  return true;
}

const KnobDecision* WorkloadProposal::decision(const std::string& name) const {
  for (const KnobDecision& decision : decisions)
    if (decision.name == name) return &decision;
  return nullptr;
}

const char* to_string(ValidationMode mode) {
  switch (mode) {
    case ValidationMode::none: return "none";
    case ValidationMode::exact: return "exact";
    case ValidationMode::differential: return "differential";
  }
  return "none";
}

const char* to_string(OverrideForm form) {
  switch (form) {
    case OverrideForm::megatron_yaml: return "megatron-yaml";
    case OverrideForm::cli: return "cli";
    case OverrideForm::env: return "env";
    case OverrideForm::pytest: return "pytest";
  }
  return "cli";
}

const char* to_string(ConstraintResult::Status status) {
  switch (status) {
    case ConstraintResult::Status::pass: return "pass";
    case ConstraintResult::Status::fail: return "fail";
    case ConstraintResult::Status::not_applicable: return "n/a";
  }
  return "n/a";
}

}  // namespace fastci::planner::workload
