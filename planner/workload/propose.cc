#include "planner/workload/propose.h"

#include <algorithm>

#include "planner/workload/data_file.h"
#include "planner/workload/layers.h"
#include "planner/workload/scope.h"

namespace fastci::planner::workload {
namespace {

using Values = std::map<std::string, std::string>;

const char* const kReasonNoEvidence = "kept: no evidence at a smaller size";

/// Working state of one proposal.
struct Draft {
  const TestWorkload& test;
  const Catalogue& catalogue;
  const Constraints& constraints;
  Values original;
  Values current;
  std::map<std::string, std::string> reasons;  ///< knob -> reason of its final value
  std::set<std::string> original_failures;
  std::map<std::string, std::string> scope;  ///< knobs no shrink may change, with why

  KnobValues values(const Values& candidate) const { return {candidate, original, test.facts}; }

  /// True when no rule that held (or did not apply) on the original fails on `candidate`.
  bool keeps_rules(const Values& candidate, std::string* broken = nullptr) const {
    for (const ConstraintResult& result : constraints.check(values(candidate), catalogue)) {
      if (result.status != ConstraintResult::Status::fail || original_failures.count(result.id)) continue;
      if (broken) *broken = result.id + " (" + result.detail + ")";
      return false;
    }
    return true;
  }

  std::optional<long long> integer(const Values& values, const std::string& name) const {
    auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return parse_integer(found->second);
  }
};

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : separator) + part;
  return out;
}

/// The raw spelling the test used for a knob (empty when absent).
std::string raw_name_of(const TestWorkload& test, const std::string& knob) {
  for (const Knob& written : test.knobs)
    if (written.name == knob) return written.raw_name;
  return {};
}

/// Interval knobs rewritten for a run of `iterations` instead of `original_iterations`: an interval
/// that fired during the run still fires (at most every `iterations`), one that never fired still does not.
Values with_iterations(const Draft& draft, long long iterations, bool resumes_at_half) {
  Values out = draft.current;
  const long long original_iterations = *draft.integer(draft.original, "train_iters");
  out["train_iters"] = std::to_string(iterations);
  for (const KnobSpec& spec : draft.catalogue.knobs()) {
    if (spec.role != KnobRole::interval) continue;
    auto interval = draft.integer(draft.original, spec.name);
    if (!interval || *interval <= 0 || *interval > original_iterations) continue;
    if (draft.scope.count(spec.name)) continue;  // in scope: train_iters must make room for it
    long long proposed = *interval;
    if (spec.name == "exit_interval" && *interval == original_iterations) proposed = iterations;
    if (spec.name == "save_interval" && resumes_at_half) {
      const long long half = iterations / 2;
      if (proposed > half || half % proposed != 0) proposed = half;
    }
    if (proposed > iterations) proposed = iterations;
    out[spec.name] = std::to_string(proposed);
  }
  return out;
}

/// Shrinks train_iters to the smallest value >= the floor that keeps every rule; intervals follow.
void shrink_iterations(Draft& draft, const ShrinkRules& rules, std::vector<std::string>& notes) {
  auto iterations = draft.integer(draft.original, "train_iters");
  if (!iterations) return;
  const bool resumes = draft.test.facts.count("resume_at_half") && draft.test.facts.at("resume_at_half") != 0;
  std::string broken;
  for (long long candidate = std::max<long long>(rules.train_iters_floor, 1); candidate < *iterations; ++candidate) {
    if (resumes && candidate % 2 != 0) continue;
    Values trial = with_iterations(draft, candidate, resumes);
    std::string why;
    if (!draft.keeps_rules(trial, &why)) {
      if (broken.empty()) broken = why;
      continue;
    }
    const std::string because = "only repeats work: iterations (" + std::to_string(*iterations) + " -> " +
                                std::to_string(candidate) + ")";
    for (const auto& [name, value] : trial) {
      if (draft.current.count(name) && draft.current.at(name) == value) continue;
      draft.reasons[name] = name == "train_iters" ? because : "kept consistent with train_iters " +
                                                                  std::to_string(candidate);
    }
    draft.current = trial;
    // Without --lr-decay-iters Megatron decays over train_iters: pin it so the first steps keep their
    // learning rates (and a warmup fraction keeps its length).
    const bool megatron_flags = draft.test.override_form == OverrideForm::megatron_yaml &&
                                raw_name_of(draft.test, "train_iters").rfind("--", 0) == 0;
    if (megatron_flags && !draft.original.count("lr_decay_iters") && !draft.original.count("train_samples")) {
      draft.current["lr_decay_iters"] = std::to_string(*iterations);
      draft.reasons["lr_decay_iters"] = "pinned to the original train_iters: the learning-rate schedule of "
                                        "the remaining steps is unchanged";
      if (!draft.keeps_rules(draft.current, &why)) {
        draft.current.erase("lr_decay_iters");
        draft.reasons.erase("lr_decay_iters");
      }
    }
    return;
  }
  if (*iterations > rules.train_iters_floor)
    notes.push_back("train_iters kept: no smaller value keeps every rule" + (broken.empty() ? "" : ": " + broken));
}

/// Layer kind per layer: 1 for MoE layers when a MoE pattern is given, else all 0.
std::optional<std::vector<int>> layer_kinds(const Draft& draft, long long layers, bool& pattern_is_list) {
  pattern_is_list = false;
  auto pattern = draft.current.find("moe_layer_freq");
  if (pattern == draft.current.end() || !draft.current.count("experts"))
    return std::vector<int>(static_cast<size_t>(layers), 0);
  if (auto list = parse_layer_list(pattern->second)) {
    pattern_is_list = true;
    return list;
  }
  auto frequency = parse_integer(pattern->second);
  if (!frequency || *frequency <= 0) return std::nullopt;
  std::vector<int> kinds;
  for (long long i = 0; i < layers; ++i) kinds.push_back(i % *frequency == 0 ? 1 : 0);
  return kinds;
}

/// Shrinks the layers of each pipeline chunk to its first and last (and one of each other kind).
void shrink_stack(Draft& draft, const ShrinkRules& rules, std::vector<std::string>& notes) {
  auto layers = draft.integer(draft.current, "layers");
  if (!layers || *layers <= 0) return;
  PipelineShape shape;
  shape.layers = static_cast<int>(*layers);
  shape.pp = static_cast<int>(draft.integer(draft.current, "pp").value_or(1));
  if (auto vpp = draft.integer(draft.current, "vpp")) {
    shape.virtual_stages = static_cast<int>(*vpp);
  } else if (auto per_stage = draft.integer(draft.current, "vpp_layers"); per_stage && *per_stage > 0) {
    shape.virtual_stages = static_cast<int>(*layers / shape.pp / *per_stage);
  }
  if (auto first = draft.integer(draft.current, "first_stage_layers")) shape.first_stage_layers = static_cast<int>(*first);
  if (auto last = draft.integer(draft.current, "last_stage_layers")) shape.last_stage_layers = static_cast<int>(*last);
  bool pattern_is_list = false;
  auto kinds = layer_kinds(draft, *layers, pattern_is_list);
  if (!kinds) {
    notes.push_back("layers kept: the MoE layer pattern is not a literal");
    return;
  }
  util::Result<LayerShrink> shrunk = shrink_layers(*kinds, shape, rules.layers_kept_per_chunk);
  if (!shrunk) {
    notes.push_back("layers kept: " + shrunk.error().message);
    return;
  }
  if (shrunk->shape.layers >= *layers) {
    draft.reasons["layers"] = "kept: each of " + std::to_string(shrunk->chunks.size()) +
                              " pipeline chunks already holds only its first and last layer (and one of each kind)";
    return;
  }
  Values trial = draft.current;
  std::map<std::string, std::string> reasons;
  const std::string chunks = std::to_string(shrunk->chunks.size()) + " pipeline chunk" +
                             (shrunk->chunks.size() == 1 ? "" : "s");
  trial["layers"] = std::to_string(shrunk->shape.layers);
  reasons["layers"] = "only repeats work: identical layers beyond the first and last of each of " + chunks;
  if (draft.current.count("vpp_layers")) {
    trial["vpp_layers"] = std::to_string(shrunk->layers_per_chunk);
    reasons["vpp_layers"] = "kept consistent with layers (same virtual stages)";
  }
  if (shape.first_stage_layers) {
    trial["first_stage_layers"] = std::to_string(*shrunk->shape.first_stage_layers);
    reasons["first_stage_layers"] = "kept consistent with layers (first stage: first and last layer)";
  }
  if (shape.last_stage_layers) {
    trial["last_stage_layers"] = std::to_string(*shrunk->shape.last_stage_layers);
    reasons["last_stage_layers"] = "kept consistent with layers (last stage: first and last layer)";
  }
  if (draft.current.count("moe_layer_freq") && draft.current.count("experts") &&
      (pattern_is_list || std::count(kinds->begin(), kinds->end(), 1) != static_cast<long>(kinds->size()))) {
    trial["moe_layer_freq"] = format_layer_list(shrunk->kinds);
    reasons["moe_layer_freq"] = "kept consistent with layers (each chunk keeps its dense/MoE sequence)";
  }
  if (auto recompute = draft.integer(draft.current, "recompute_layers");
      recompute && *recompute > shrunk->layers_per_chunk && shrunk->layers_per_chunk > 0) {
    trial["recompute_layers"] = std::to_string(shrunk->layers_per_chunk);
    reasons["recompute_layers"] = "kept consistent with layers (at most the layers of a stage)";
  }
  for (const auto& [name, value] : trial) {
    if (!draft.scope.count(name) || draft.current.count(name) == 0 || draft.current.at(name) == value) continue;
    draft.reasons["layers"] = "kept: " + name + " changes with it and is " + draft.scope.at(name);
    return;
  }
  std::string broken;
  if (!draft.keeps_rules(trial, &broken)) {
    notes.push_back("layers kept: the shrunk layout breaks " + broken);
    return;
  }
  draft.current = trial;
  for (auto& [name, reason] : reasons) draft.reasons[name] = reason;
}

/// The covered-symbol set a run is compared on.
std::set<std::string> compared_symbols(const SizedRun& run, const std::set<std::string>* changed) {
  if (!changed) return run.covered_symbols;
  std::set<std::string> out;
  for (const std::string& symbol : run.covered_symbols)
    if (changed->count(symbol)) out.insert(symbol);
  return out;
}

/// Context keys compared: with changed symbols, those of the changed symbols ("<symbol>|<key>") and
/// keys that name no symbol.
std::set<std::string> compared_contexts(const SizedRun& run, const std::set<std::string>* changed) {
  if (!changed) return run.context_keys;
  std::set<std::string> out;
  for (const std::string& key : run.context_keys) {
    auto bar = key.find('|');
    if (bar == std::string::npos || changed->count(key.substr(0, bar))) out.insert(key);
  }
  return out;
}

bool same_evidence(const SizedRun& a, const SizedRun& b, const std::set<std::string>* changed) {
  return compared_symbols(a, changed) == compared_symbols(b, changed) &&
         compared_contexts(a, changed) == compared_contexts(b, changed) && a.kernels == b.kernels;
}

/// How two runs' compared evidence differs, in counts.
std::string evidence_difference(const SizedRun& smaller, const SizedRun& reference, const std::set<std::string>* changed) {
  auto only = [](const std::set<std::string>& a, const std::set<std::string>& b) {
    std::size_t n = 0;
    for (const auto& x : a) n += b.count(x) ? 0 : 1;
    return n;
  };
  auto symbols_small = compared_symbols(smaller, changed), symbols_ref = compared_symbols(reference, changed);
  auto contexts_small = compared_contexts(smaller, changed), contexts_ref = compared_contexts(reference, changed);
  return std::to_string(only(symbols_ref, symbols_small)) + " symbols and " +
         std::to_string(only(contexts_ref, contexts_small)) + " contexts only at the original size, " +
         std::to_string(only(symbols_small, symbols_ref)) + " and " + std::to_string(only(contexts_small, contexts_ref)) +
         " only at the smaller" + (smaller.kernels == reference.kernels ? "" : "; kernels differ");
}

/// True when `run` was recorded at `values` except for `knob`.
bool matches_except(const SizedRun& run, const Values& values, const std::string& knob, const Catalogue& catalogue) {
  for (const KnobSpec& spec : catalogue.knobs()) {
    if (spec.name == knob) continue;
    auto mine = values.find(spec.name);
    auto theirs = run.knobs.find(spec.name);
    const bool has_mine = mine != values.end(), has_theirs = theirs != run.knobs.end();
    if (has_mine != has_theirs) return false;
    if (has_mine && mine->second != theirs->second) return false;
  }
  return true;
}

/// Shrinks candidates for which a recorded run at the smaller value (all else as proposed so far)
/// shows the same covered symbols, contexts and kernels as a run at the original size.
void shrink_by_evidence(Draft& draft, const std::vector<std::string>& candidates, const std::vector<SizedRun>& history,
                        const std::set<std::string>* changed) {
  const SizedRun* reference = nullptr;
  for (const SizedRun& run : history)
    if (matches_except(run, draft.original, "", draft.catalogue)) reference = &run;
  if (!reference) return;
  for (const std::string& knob : candidates) {
    auto value = draft.integer(draft.current, knob);
    if (!value) continue;
    const SizedRun* best = nullptr;
    long long best_value = *value;
    std::string differs;
    for (const SizedRun& run : history) {
      auto at = run.knobs.find(knob);
      if (at == run.knobs.end()) continue;
      auto smaller = parse_integer(at->second);
      if (!smaller || *smaller >= best_value || *smaller <= 0) continue;
      if (!matches_except(run, draft.current, knob, draft.catalogue)) continue;
      if (!same_evidence(run, *reference, changed)) {
        differs = "kept: the run at " + knob + "=" + at->second + " differs from the one at " + std::to_string(*value) +
                  " (" + evidence_difference(run, *reference, changed) + ")";
        continue;
      }
      Values trial = draft.current;
      trial[knob] = at->second;
      if (!draft.keeps_rules(trial)) continue;
      best = &run;
      best_value = *smaller;
    }
    if (!best) {
      if (!differs.empty()) draft.reasons[knob] = differs;
      continue;
    }
    draft.current[knob] = std::to_string(best_value);
    // Only runs that launched kernels (on a GPU) can show the same kernels; CPU runs show none.
    draft.reasons[knob] = "evidence at " + knob + "=" + std::to_string(best_value) + " shows the same covered symbols, " +
                          (reference->kernels.empty() ? "contexts (no kernel launches recorded at either size)"
                                                      : "contexts and kernels") +
                          (changed ? " (compared on the changed symbols)" : "");
  }
}

/// Raw spelling for a knob the test did not set: its first flag-style alias, else its first alias.
std::string raw_name_for(const std::string& knob, const TestWorkload& test, const Catalogue& catalogue) {
  for (const Knob& written : test.knobs)
    if (written.name == knob) return written.raw_name;
  const KnobSpec* spec = catalogue.find(knob);
  if (!spec) return knob;
  // Aliases are stored normalised; rebuild the flag spelling for CLI-style runners.
  const std::string& alias = spec->aliases.front();
  if (test.override_form == OverrideForm::megatron_yaml || test.override_form == OverrideForm::cli) {
    std::string flag = "--" + alias;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
  }
  return alias;
}

Override make_override(const std::string& test_id, const std::string& knob, const std::string& raw,
                       const std::string& value, OverrideForm form) {
  Override out{knob, raw, value, form, ""};
  switch (form) {
    case OverrideForm::megatron_yaml: out.text = ".MODEL_ARGS.\"" + raw + "\" = " + value; break;
    case OverrideForm::cli: out.text = raw + " " + value; break;
    case OverrideForm::env: {
      std::string name = normalise_knob_name(raw);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
        return static_cast<char>(c == '.' ? '_' : std::toupper(c));
      });
      out.text = name + "=" + value;
      break;
    }
    case OverrideForm::pytest:
      // fastci's pytest plugin puts @pytest.mark.world_size(N) where DeepSpeed's DistributedTest reads it
      out.text = "--fastci-world-size=" + test_id + "=" + value;  // the one knob pytest runners take
      break;
  }
  if (form == OverrideForm::megatron_yaml && !parse_integer(value)) out.text = ".MODEL_ARGS.\"" + raw + "\" = \"" + value + "\"";
  return out;
}

}  // namespace

util::Result<ShrinkRules> load_shrink_rules(const std::string& path) {
  util::Result<toml::table> table = load_toml(path);
  if (!table) return table.error();
  const toml::table* runner = (*table)["runner"].as_table();
  if (!runner) return util::Error{"expected a [runner] table", path, 0};
  ShrinkRules rules;
  rules.train_iters_floor = (*runner)["train_iters_floor"].value_or(rules.train_iters_floor);
  rules.layers_kept_per_chunk = (*runner)["layers_kept_per_chunk"].value_or(rules.layers_kept_per_chunk);
  if (rules.train_iters_floor < 1 || rules.layers_kept_per_chunk < 1)
    return util::Error{"train_iters_floor and layers_kept_per_chunk must be >= 1", path, toml_line(*runner)};
  return rules;
}

WorkloadProposal propose(const TestWorkload& test, const Catalogue& catalogue, const Constraints& constraints,
                         const std::vector<SizedRun>& history, ValidationMode allowed, const ProposeOptions& options) {
  Draft draft{test, catalogue, constraints, {}, {}, {}, {}, {}};
  for (const Knob& knob : test.knobs) draft.original.emplace(knob.name, knob.value);
  draft.current = draft.original;

  WorkloadProposal proposal;
  proposal.test_id = test.id;
  proposal.gpus = test.gpus;
  proposal.gpus_source = test.gpus_source;
  for (const ConstraintResult& result : constraints.check(draft.values(draft.original), catalogue)) {
    if (result.status != ConstraintResult::Status::fail) continue;
    draft.original_failures.insert(result.id);
    proposal.original_violations.push_back(result.id + ": " + result.detail);
  }

  draft.scope = detect_scope(test, catalogue);
  const std::map<std::string, std::string>& scope = draft.scope;
  std::vector<std::string> notes;
  const bool may_shrink = allowed != ValidationMode::none &&
                          (!test.compares_golden_values || allowed == ValidationMode::differential);
  if (!may_shrink)
    notes.push_back(allowed == ValidationMode::none
                        ? "no shrinking requested"
                        : "golden values depend on the size and differential mode is not allowed");

  if (may_shrink) {
    const auto free = [&](const std::string& knob) {
      return !scope.count(knob) && !test.blocked.count(knob) && test.shrinkable.count(knob);
    };
    if (free("train_iters")) shrink_iterations(draft, options.rules, notes);
    if (free("layers")) shrink_stack(draft, options.rules, notes);
    std::vector<std::string> candidates;
    for (const KnobSpec& spec : catalogue.knobs()) {
      if (scope.count(spec.name) || test.blocked.count(spec.name) || !draft.original.count(spec.name)) continue;
      if (draft.current.at(spec.name) != draft.original.at(spec.name)) continue;  // already shrunk
      if (spec.role == KnobRole::size || spec.role == KnobRole::batch || spec.role == KnobRole::parallel ||
          spec.role == KnobRole::iterations)
        candidates.push_back(spec.name);
    }
    shrink_by_evidence(draft, candidates, history, options.changed_symbols);
  }

  // Decisions: the test's knobs in their order, then knobs a shrink added.
  std::vector<std::string> order;
  for (const Knob& knob : test.knobs)
    if (std::find(order.begin(), order.end(), knob.name) == order.end()) order.push_back(knob.name);
  for (const auto& [name, value] : draft.current)
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  for (const std::string& name : order) {
    KnobDecision decision;
    decision.name = name;
    decision.raw_name = raw_name_for(name, test, catalogue);
    decision.original = draft.original.count(name) ? draft.original.at(name) : "";
    decision.proposed = draft.current.count(name) ? draft.current.at(name) : "";
    auto in_scope = scope.find(name);
    decision.in_scope = in_scope != scope.end();
    if (auto reason = draft.reasons.find(name); reason != draft.reasons.end()) {
      decision.reason = reason->second;
    } else if (decision.in_scope) {
      decision.reason = in_scope->second;
    } else if (auto blocked = test.blocked.find(name); blocked != test.blocked.end()) {
      decision.reason = "kept: " + blocked->second;
    } else if (!catalogue.find(name)) {
      decision.reason = "kept: not a workload knob";
    } else if (!parse_integer(decision.original)) {
      decision.reason = "kept: not a literal integer (" + decision.original + ")";
    } else {
      decision.reason = kReasonNoEvidence;
    }
    if (decision.changed())
      proposal.overrides.push_back(make_override(test.id, name, decision.raw_name, decision.proposed, test.override_form));
    proposal.decisions.push_back(std::move(decision));
  }

  proposal.constraints = constraints.check(draft.values(draft.current), catalogue);
  const bool changed = !proposal.overrides.empty();
  if (!changed) {
    proposal.mode = ValidationMode::none;
    proposal.mode_reason = notes.empty() ? "nothing to shrink" : join(notes, "; ");
  } else if (test.compares_golden_values) {
    proposal.mode = ValidationMode::differential;
    proposal.mode_reason = "golden values depend on the size: compare with a base-commit run at the same size";
  } else {
    proposal.mode = ValidationMode::exact;
    proposal.mode_reason = "the test's own checks do not depend on the shrunk knobs";
  }
  if (changed && !notes.empty()) proposal.mode_reason += "; " + join(notes, "; ");
  proposal.before = estimate_cost(test, draft.original, options.cost);
  proposal.after = estimate_cost(test, draft.current, options.cost);
  return proposal;
}

}  // namespace fastci::planner::workload
