#pragma once
/// The workload data model: a test's knobs, runs recorded at other sizes, and a shrink proposal.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/facts.h"

namespace fastci::planner::workload {

/// One workload knob of a test as read from its source.
struct Knob {
  std::string name;      ///< canonical catalogue name, or the raw name when the catalogue has none
  std::string raw_name;  ///< as written: "--num-layers", "num_layers", "world_size"
  std::string value;     ///< as written, "${VAR}" references included
  frontend::KnobOrigin origin = frontend::KnobOrigin::config_file;
  std::string file;
  int line = 0;
};

/// How the runner of a test takes overrides.
enum class OverrideForm {
  megatron_yaml,  ///< a yq edit of model_config.yaml MODEL_ARGS, as run_ci_test.sh itself does
  cli,            ///< "--flag value" appended to the command line
  env,            ///< NAME=value in the environment
  pytest,         ///< a pytest argument (-k selection or a declared override option)
};

/// Everything the shrinker needs to know about one test.
struct TestWorkload {
  std::string id;         ///< as the runner names it ("gpt/gpt3_mcore_te_tp2_pp2", a pytest node id)
  std::string framework;  ///< "megatron", "deepspeed", "torchtitan", ...
  std::string file;       ///< where the knobs were read
  OverrideForm override_form = OverrideForm::cli;
  std::vector<Knob> knobs;
  int gpus = 0;           ///< GPUs of one run (nodes x GPUs per node); 0 when unknown
  std::string gpus_source;  ///< where the GPU count came from
  int repeats = 1;        ///< times CI runs the test per pipeline (Megatron recipes: n_repeat)
  int phases = 1;         ///< training runs per repeat (2 for checkpoint-resume tests)
  bool compares_golden_values = false;  ///< checks metrics against values recorded at its size
  bool training = true;   ///< false for inference-only workloads (cost is then not FLOPs-driven)
  std::set<std::string> declared_scope;  ///< knobs declared in scope ([tool.fastci], config)
  std::set<std::string> varied_scope;    ///< knobs the test family varies (parametrize, sibling configs)
  std::set<std::string> asserted_scope;  ///< knobs its assertions or golden values are keyed on
  std::map<std::string, long long> facts;  ///< runner facts for constraints: test.<name>
  std::set<std::string> shrinkable;      ///< knobs the runner knows only repeat work ("train_iters", "layers")
  std::map<std::string, std::string> blocked;  ///< knob -> why it may not shrink (checkpoint, layout)
};

/// Evidence from one recorded run of a test at known knob values.
struct SizedRun {
  std::map<std::string, std::string> knobs;  ///< canonical name -> value at that run
  std::set<std::string> covered_symbols;
  std::set<std::string> context_keys;  ///< "<symbol>|<context key>": compared per changed symbol when given
  std::set<std::string> kernels;
  double seconds = 0;  ///< wall-clock duration of the run
  int gpus = 0;
};

/// How a shrunk test's result is judged.
enum class ValidationMode {
  none,          ///< nothing shrunk: the test runs as written
  exact,         ///< the shrunk test's own checks apply unchanged
  differential,  ///< the shrunk test is paired with a base-commit run at the same size and compared
};

/// Outcome of one validity rule on a proposal.
struct ConstraintResult {
  std::string id;
  std::string description;
  std::string source;
  enum class Status { pass, fail, not_applicable } status = Status::not_applicable;
  std::string detail;  ///< the check with values substituted, or why it does not apply
};

/// One override in the form the test's runner takes.
struct Override {
  std::string knob;  ///< canonical name
  std::string key;   ///< raw name the runner reads ("--num-layers")
  std::string value;
  OverrideForm form = OverrideForm::cli;
  std::string text;  ///< ready to use: `.MODEL_ARGS."--num-layers" = 4`, "--num-layers 4", "NUM_LAYERS=4"
};

/// The decision on one knob.
struct KnobDecision {
  std::string name;
  std::string raw_name;
  std::string original;
  std::string proposed;  ///< equal to original when kept
  bool in_scope = false;
  std::string reason;
  bool changed() const { return proposed != original; }
};

/// Predicted cost of one test run as planned.
struct CostEstimate {
  double parameters = 0;        ///< active parameters per token
  double flops_per_step = 0;
  double steps = 0;             ///< iterations over all phases of one repeat
  double gpu_seconds = 0;       ///< over all phases and repeats
};

/// The shrink proposal for one test.
struct WorkloadProposal {
  std::string test_id;
  int gpus = 0;
  std::string gpus_source;
  std::vector<KnobDecision> decisions;     ///< one per knob of the test, catalogue order first
  std::vector<Override> overrides;         ///< only for changed knobs (and knobs pinned to keep behaviour)
  ValidationMode mode = ValidationMode::none;
  std::string mode_reason;
  std::vector<ConstraintResult> constraints;  ///< checked on the proposed values
  std::vector<std::string> original_violations;  ///< rules the test breaks as written (reported, not fixed)
  CostEstimate before;
  CostEstimate after;
  bool all_constraints_pass() const;
  const KnobDecision* decision(const std::string& name) const;
};

/// Names used in JSON and reports.
const char* to_string(ValidationMode mode);
const char* to_string(OverrideForm form);
const char* to_string(ConstraintResult::Status status);

}  // namespace fastci::planner::workload
