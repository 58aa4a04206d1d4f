#include "planner/workload/report.h"

#include "util/format.h"

namespace fastci::planner::workload {
namespace {

using util::fixed;

double hours(double gpu_seconds) { return gpu_seconds / 3600.0; }

nlohmann::json cost_json(const CostEstimate& cost) {
  return {{"active_parameters", cost.parameters},
          {"flops_per_step", cost.flops_per_step},
          {"training_steps_per_repeat", cost.steps},
          {"gpu_seconds", cost.gpu_seconds},
          {"gpu_hours", hours(cost.gpu_seconds)}};
}

/// Markdown-safe cell text.
std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

/// The reasons behind a row: shrink reasons of changed knobs, else why the shrinkable ones were kept.
std::string reasons_text(const WorkloadProposal& proposal) {
  std::string out;
  for (const KnobDecision& decision : proposal.decisions) {
    const bool primary = decision.name == "train_iters" || decision.name == "layers";
    if (!primary && !decision.changed()) continue;
    if (decision.changed() && decision.reason.rfind("kept consistent", 0) == 0) continue;
    if (decision.changed() && decision.reason.rfind("pinned", 0) == 0) continue;
    out += (out.empty() ? "" : "; ") + decision.raw_name + ": " + decision.reason;
  }
  return out.empty() ? proposal.mode_reason : out;
}

std::string constraints_text(const WorkloadProposal& proposal) {
  int passed = 0;
  std::string failed;
  for (const ConstraintResult& result : proposal.constraints) {
    if (result.status == ConstraintResult::Status::pass) ++passed;
    if (result.status == ConstraintResult::Status::fail) failed += (failed.empty() ? "" : ", ") + result.id;
  }
  if (!failed.empty()) return "FAIL: " + failed;
  return "ok (" + std::to_string(passed) + " pass)";
}

}  // namespace

std::string changed_knobs_text(const WorkloadProposal& proposal) {
  std::string out;
  for (const KnobDecision& decision : proposal.decisions) {
    if (!decision.changed()) continue;
    out += (out.empty() ? "" : ", ") + decision.raw_name + " " +
           (decision.original.empty() ? std::string("(unset)") : decision.original) + "->" + decision.proposed;
  }
  return out;
}

nlohmann::json to_json(const WorkloadProposal& proposal) {
  nlohmann::json knobs = nlohmann::json::array();
  for (const KnobDecision& decision : proposal.decisions)
    knobs.push_back({{"name", decision.name},
                     {"raw_name", decision.raw_name},
                     {"original", decision.original},
                     {"proposed", decision.proposed},
                     {"changed", decision.changed()},
                     {"in_scope", decision.in_scope},
                     {"reason", decision.reason}});
  nlohmann::json overrides = nlohmann::json::array();
  for (const Override& item : proposal.overrides)
    overrides.push_back({{"knob", item.knob},
                         {"key", item.key},
                         {"value", item.value},
                         {"form", to_string(item.form)},
                         {"text", item.text}});
  nlohmann::json constraints = nlohmann::json::array();
  for (const ConstraintResult& result : proposal.constraints)
    constraints.push_back({{"id", result.id},
                           {"status", to_string(result.status)},
                           {"detail", result.detail},
                           {"source", result.source}});
  return {{"test", proposal.test_id},
          {"gpus", proposal.gpus},
          {"gpus_source", proposal.gpus_source},
          {"mode", to_string(proposal.mode)},
          {"mode_reason", proposal.mode_reason},
          {"knobs", knobs},
          {"overrides", overrides},
          {"constraints", constraints},
          {"all_constraints_pass", proposal.all_constraints_pass()},
          {"original_violations", proposal.original_violations},
          {"cost",
           {{"before", cost_json(proposal.before)},
            {"after", cost_json(proposal.after)},
            {"saved_gpu_hours", hours(proposal.before.gpu_seconds - proposal.after.gpu_seconds)}}}};
}

nlohmann::json totals_json(const std::vector<WorkloadProposal>& proposals) {
  double before = 0, after = 0;
  int shrunk = 0, exact = 0, differential = 0, failing = 0;
  for (const WorkloadProposal& proposal : proposals) {
    before += proposal.before.gpu_seconds;
    after += proposal.after.gpu_seconds;
    if (proposal.mode != ValidationMode::none) ++shrunk;
    if (proposal.mode == ValidationMode::exact) ++exact;
    if (proposal.mode == ValidationMode::differential) ++differential;
    if (!proposal.all_constraints_pass()) ++failing;
  }
  return {{"tests", proposals.size()},
          {"shrunk", shrunk},
          {"exact", exact},
          {"differential", differential},
          {"constraint_failures", failing},
          {"gpu_hours_before", hours(before)},
          {"gpu_hours_after", hours(after)},
          {"gpu_hours_saved", hours(before - after)}};
}

std::string markdown_table(const std::vector<WorkloadProposal>& proposals) {
  std::string out =
      "| case | GPUs | shrunk knobs (old->new) | mode | reason | constraints | GPU-h before | GPU-h after |\n"
      "| --- | ---: | --- | --- | --- | --- | ---: | ---: |\n";
  for (const WorkloadProposal& proposal : proposals) {
    std::string changed = changed_knobs_text(proposal);
    out += "| " + cell(proposal.test_id) + " | " + std::to_string(proposal.gpus) + " | " +
           cell(changed.empty() ? "-" : changed) + " | " + to_string(proposal.mode) + " | " +
           cell(reasons_text(proposal)) + " | " + cell(constraints_text(proposal)) + " | " +
           fixed(hours(proposal.before.gpu_seconds), 2) + " | " + fixed(hours(proposal.after.gpu_seconds), 2) +
           " |\n";
  }
  const nlohmann::json totals = totals_json(proposals);
  out += "| **total** (" + std::to_string(proposals.size()) + " cases, " + std::to_string(totals["shrunk"].get<int>()) +
         " shrunk) | | | | | | " + fixed(totals["gpu_hours_before"].get<double>(), 1) + " | " +
         fixed(totals["gpu_hours_after"].get<double>(), 1) + " |\n";
  return out;
}

}  // namespace fastci::planner::workload
