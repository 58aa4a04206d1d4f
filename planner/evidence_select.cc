#include "planner/evidence_select.h"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "callgraph/native_index.h"
#include "planner/context_key.h"
#include "planner/kernel_evidence.h"
#include "planner/python_header.h"

namespace fastci::planner {
namespace {

using frontend::SymbolKind;

std::string module_of_path(const std::string& path) {
  std::string m = path;
  if (m.ends_with("/__init__.py")) m.resize(m.size() - 12);
  else if (m.ends_with(".py")) m.resize(m.size() - 3);
  std::replace(m.begin(), m.end(), '/', '.');
  return m;
}

std::string without_locals(std::string name) {
  for (auto at = name.find("<locals>."); at != std::string::npos; at = name.find("<locals>."))
    name.erase(at, 9);
  return name;
}

/// Lines of a definition's body: its header (a Python signature over several lines with its
/// defaults, or a decorator's arguments) runs at import time, not when the function is called.
Lines body_lines(const frontend::Symbol& s, const BaseSourceLookup& base_source) {
  int header_end = s.first_line;
  if (s.language == frontend::Language::python)
    if (const std::string* source = base_source(s.file)) header_end = python_header_end(*source, s.first_line);
  return s.last_line > header_end ? Lines{header_end + 1, s.last_line} : Lines{s.first_line, s.last_line};
}

bool checkable(const ChangedSymbol& s) {
  return s.change != SymbolChange::added &&
         (s.kind == SymbolKind::function || s.kind == SymbolKind::method || s.kind == SymbolKind::kernel) &&
         s.language == frontend::Language::python;
}

/// A C/C++/CUDA function whose lines native coverage (lcov, gcov, llvm-cov) can show executed.
bool native_checkable(const ChangedSymbol& s) {
  return s.change != SymbolChange::added && (s.kind == SymbolKind::function || s.kind == SymbolKind::method) &&
         s.language != frontend::Language::python;
}

/// Maps evidence test ids to head test ids: equal, or a unique head id ending in "/<id>" (pytest
/// run from a sub-folder such as DeepSpeed's tests/).
class TestIdMap {
 public:
  explicit TestIdMap(const Selection& s) {
    auto add = [&](const std::string& id) {
      exact_.insert(id);
      auto sep = id.find("::");
      for (std::size_t slash = id.find('/'); slash != std::string::npos && slash < sep;
           slash = id.find('/', slash + 1)) {
        auto [it, inserted] = suffix_.try_emplace(id.substr(slash + 1), id);
        if (!inserted && it->second != id) it->second.clear();  // ambiguous
      }
    };
    for (const auto& t : s.selected) add(t.test.id);
    for (const auto& t : s.skipped) add(t.test.id);
  }
  std::string head_id(const std::string& evidence_id) const {
    if (exact_.count(evidence_id)) return evidence_id;
    auto it = suffix_.find(evidence_id);
    return it == suffix_.end() ? std::string() : it->second;
  }

 private:
  std::set<std::string> exact_;
  std::map<std::string, std::string> suffix_;
};

constexpr std::int64_t kFirstRun = std::numeric_limits<std::int64_t>::min();

struct CheckedSymbol {
  const ChangedSymbol* change;
  frontend::Symbol base;  ///< the symbol at base (lines, file)
  Lines body;             ///< the lines that run only when it is called, at base
  Lines entry;            ///< its first line (first decorator or `def`): what a run recording entries only shows
  std::string function;   ///< evidence function name (a kernel's reduced name)
  /// Launches of these are its evidence: a changed kernel itself, or the kernels through which alone a
  /// changed `__device__` function runs (kernels_calling); empty for host code.
  std::vector<evidence::KernelName> kernels;
  bool device_function = false;  ///< a `__device__` function whose evidence is its kernels' launches
  bool native = false;  ///< a C/C++/CUDA function: only runs with native coverage may rule it out
  /// (head test id, run id) -> that run's commit, for every run that executed its body.
  std::map<std::pair<std::string, std::int64_t>, std::string> executed;
  bool stale_everywhere = true;
};

/// A test's runs holding coverage, under the id the evidence names it by.
struct TestCoverageRuns {
  std::string evidence_id;
  std::vector<CoverageRun> runs;
};

TestCoverageRuns coverage_runs_of(evidence::Store& store, const std::string& id) {
  // The evidence may name the test relative to the folder pytest ran in (DeepSpeed's tests/).
  for (std::size_t from = 0; from != std::string::npos;) {
    std::string candidate = id.substr(from);
    auto files = store.covered_files(candidate);
    if (files.ok() && !files->empty()) {
      TestCoverageRuns out{candidate, {}};
      std::map<std::int64_t, std::size_t> index;
      for (const auto& f : *files) {
        auto [it, fresh] = index.try_emplace(f.run_id, out.runs.size());
        if (fresh) out.runs.push_back({f.run_id, f.commit, false});
        out.runs[it->second].native |= callgraph::is_native_source(f.path);
      }
      return out;
    }
    auto slash = id.find('/', from);
    auto sep = id.find("::");
    if (slash == std::string::npos || slash > sep) break;
    from = slash + 1;
  }
  return {};
}

/// The collector's per-test, per-function limits of context recording, from a run's environment
/// (`sampling`, written by the pytest plugin); the plugin's defaults where a run does not say.
struct SamplingLimits {
  std::size_t max_contexts = 8;
  std::uint64_t max_calls = 32;
};

SamplingLimits sampling_limits(const std::string& environment) {
  SamplingLimits limits;
  auto j = nlohmann::json::parse(environment, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("sampling") && j["sampling"].is_object()) {
    const auto& s = j["sampling"];
    if (s.contains("max_contexts") && s["max_contexts"].is_number_unsigned())
      limits.max_contexts = s["max_contexts"].get<std::size_t>();
    if (s.contains("max_calls") && s["max_calls"].is_number_unsigned())
      limits.max_calls = s["max_calls"].get<std::uint64_t>();
  }
  return limits;
}

/// Whether a run's lines are function entries only: the pytest plugin's tracer backend without
/// coverage.py records, per test, the first line of each function called (its code object's
/// co_firstlineno) and no other line, so only that line tells whether a function ran.
bool entry_lines_only(const std::string& environment) {
  auto j = nlohmann::json::parse(environment, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains("backend") && j["backend"].is_string() && j["backend"] == "sys.setprofile";
}

/// Whether the lines that show `c` ran in a run (its body, or its first line in a run of entries
/// only) still map to the run's commit; else that run's evidence is stale for `c`.
bool lines_map(LineMapper& lines, const CheckedSymbol& c, const std::string& commit, bool entries_only) {
  return lines.to_evidence_commit(c.base.file, entries_only ? c.entry : c.body, commit).has_value();
}

/// Whether a run recorded any kernel launch of the test (it ran on a GPU under a collector).
bool run_launched(const std::vector<evidence::StoredKernel>& launches, std::int64_t run) {
  return std::any_of(launches.begin(), launches.end(), [&](const evidence::StoredKernel& k) { return k.run_id == run; });
}

/// "executed changed f", "launched changed kernel k", "launched kernel k, which calls changed device
/// function f".
std::string confirmation_text(const CheckedSymbol& c) {
  std::string change = to_string(c.change->change);
  if (c.kernels.empty()) return "executed " + change + " " + c.change->qualified_name;
  if (!c.device_function) return "launched " + change + " kernel " + c.kernels.front().qualified;
  std::string names;
  for (std::size_t i = 0; i < c.kernels.size() && i < 3; ++i) names += (i ? " or " : "") + c.kernels[i].qualified;
  if (c.kernels.size() > 3) names += " or " + std::to_string(c.kernels.size() - 3) + " more";
  return "launched kernel " + names + ", which calls " + change + " device function " + c.change->qualified_name;
}

/// The evidence reason for a changed symbol that runs of the test executed, naming the deciding run
/// when it is one of them, else the newest; it keeps the witness of the static path it confirms, so
/// that `explain` still shows how the test reaches the symbol.
SelectionReason confirmation(const CheckedSymbol& c, const std::string& test, const SelectedTest& selected) {
  std::string where;
  for (auto it = c.executed.lower_bound({test, kFirstRun}); it != c.executed.end() && it->first.first == test; ++it) {
    if (selected.evidence_run && selected.evidence_run->id == it->first.second) {
      where = describe(*selected.evidence_run);
      break;
    }
    where = "run " + std::to_string(it->first.second) + " at " + it->second.substr(0, 12);
  }
  SelectionReason r{SelectionReason::Kind::evidence, confirmation_text(c) + " in " + where, c.change->id, {}};
  for (const auto& s : selected.reasons)
    if (is_graph_path(s.kind) && s.changed_symbol == c.change->id && !s.witness.empty()) {
      r.witness = s.witness;
      break;
    }
  return r;
}

}  // namespace

std::string evidence_function_name(const frontend::Symbol& symbol) {
  std::string module = module_of_path(symbol.file);
  std::string name = symbol.qualified_name;
  if (name.starts_with(module + ".")) name = name.substr(module.size() + 1);
  // The frontend numbers lambdas per scope (<lambda1>, as PyCG does); Python names them all <lambda>.
  for (auto at = name.find("<lambda"); at != std::string::npos; at = name.find("<lambda", at + 1)) {
    auto digits = at + 7;
    auto end = name.find('>', digits);
    if (end != std::string::npos && end > digits) name.erase(digits, end - digits);
  }
  return symbol.file + "::" + without_locals(name);
}

EvidenceSelection refine_with_evidence(const Selection& static_selection, const ChangeSet& changes,
                                       const BaseSymbolLookup& base_symbol, const BaseSourceLookup& base_source,
                                       evidence::Store& store, LineMapper& lines,
                                       const KernelCallersLookup& kernels_calling) {
  EvidenceSelection out;
  TestIdMap ids(static_selection);
  std::set<std::string> commits;
  std::map<std::int64_t, SamplingLimits> sampling;  // per run
  std::set<std::int64_t> entries_only;               // runs whose lines are function entries only
  if (auto runs = store.runs(); runs.ok())
    for (const auto& r : *runs) {
      commits.insert(r.run.commit);
      sampling[r.id] = sampling_limits(r.run.environment);
      if (entry_lines_only(r.run.environment)) entries_only.insert(r.id);
    }

  // 1. Which tests executed each changed symbol, in runs whose lines can be carried to base; for a
  // kernel, which tests launched it in any run (adding a test needs no fresh lines).
  std::vector<CheckedSymbol> checked;
  for (const auto& s : changes.symbols) {
    bool kernel = is_native_kernel(s.kind, s.language);
    bool native = native_checkable(s);
    std::vector<frontend::Symbol> callers;
    if (native && kernels_calling) callers = kernels_calling(s.id);
    if (!checkable(s) && !kernel && !native) continue;
    const frontend::Symbol* base = base_symbol(s.change == SymbolChange::renamed ? s.renamed_from : s.id);
    if (!base) continue;
    CheckedSymbol c{&s, *base, body_lines(*base, base_source), Lines{base->first_line, base->first_line},
                    evidence_function_name(*base), {}, false, native, {}, true};
    if (kernel) c.kernels.push_back(evidence::kernel_symbol_name(base->qualified_name));
    if (!callers.empty()) {
      // Device code: native coverage never sees it; the launches of its kernels do.
      c.device_function = true;
      c.native = false;
      for (const auto& k : callers) c.kernels.push_back(evidence::kernel_symbol_name(k.qualified_name));
    }
    if (!c.kernels.empty()) {
      kernel = true;
      c.function = c.kernels.front().qualified;
      for (const auto& name : c.kernels)
        if (auto launches = launches_of(store, name); launches.ok())
          for (const auto& l : *launches)
            if (auto id = ids.head_id(l.test_id); !id.empty()) c.executed[{id, l.run_id}] = l.commit;
    }
    for (const auto& commit : commits) {
      auto mapped = lines.to_evidence_commit(base->file, c.body, commit);
      if (!mapped) continue;
      c.stale_everywhere = false;
      if (kernel) continue;
      auto hits = store.tests_covering(base->file, *mapped);
      if (!hits.ok()) continue;
      for (const auto& h : *hits)
        if (h.commit == commit && !entries_only.count(h.run_id))
          if (auto id = ids.head_id(h.test_id); !id.empty()) c.executed[{id, h.run_id}] = h.commit;
      // Runs that recorded function entries only: the entry line is the one that shows a call.
      if (entries_only.empty()) continue;
      auto entry = lines.to_evidence_commit(base->file, c.entry, commit);
      if (!entry) continue;
      auto entered = store.tests_covering(base->file, *entry);
      if (!entered.ok()) continue;
      for (const auto& h : *entered)
        if (h.commit == commit && entries_only.count(h.run_id))
          if (auto id = ids.head_id(h.test_id); !id.empty()) c.executed[{id, h.run_id}] = h.commit;
    }
    ++out.symbols_with_evidence;
    if (c.stale_everywhere) ++out.symbols_stale;
    checked.push_back(std::move(c));
  }

  // 2. Candidates: statically selected tests and every test that executed a changed symbol.
  std::map<std::string, SelectedTest> candidates;
  std::map<std::string, SkippedTest> skipped;
  for (const auto& t : static_selection.selected) candidates[t.test.id] = t;
  for (const auto& t : static_selection.skipped) skipped[t.test.id] = t;
  for (const auto& c : checked)
    for (const auto& [executed, commit] : c.executed)
      if (auto it = skipped.find(executed.first); it != skipped.end()) {
        candidates[executed.first] = SelectedTest{it->second.test, {}, -1, {}, {}, {}};
        skipped.erase(it);
      }

  // 3. Per test, its deciding run (the latest complete, passing run at full size) rules static paths
  // out symbol by symbol; any run that executed a changed symbol confirms it.
  std::size_t undecided = 0;
  bool any_kernel_symbol = std::any_of(checked.begin(), checked.end(), [](const CheckedSymbol& c) { return !c.kernels.empty(); });
  std::map<std::string, std::string> evidence_ids;  // head id -> the id the evidence names it by
  std::map<std::string, std::vector<evidence::HistoryEntry>> histories;  // read once, for steps 3 and 4
  std::map<std::string, std::vector<evidence::StoredKernel>> launches;   // read once, with kernel symbols only
  auto launches_of_test = [&](const std::string& id) -> const std::vector<evidence::StoredKernel>& {
    auto [it, fresh] = launches.try_emplace(id);
    if (fresh)
      if (auto found = store.kernels_of(evidence_ids[id]); found.ok()) it->second = std::move(*found);
    return it->second;
  };
  for (auto& [id, selected] : candidates) {
    TestEvidenceSummary summary;
    auto found = coverage_runs_of(store, id);
    evidence_ids[id] = found.runs.empty() ? id : found.evidence_id;
    if (auto history = store.history(evidence_ids[id]); history.ok()) histories[id] = std::move(*history);
    if (!found.runs.empty()) {
      auto decided = choose_deciding_run(histories[id], found.runs, selected.test.gpus);
      if (decided.run) {
        summary.has_evidence = true;
        summary.run_id = decided.run->id;
        summary.run_commit = decided.run->commit;
        for (const auto& r : found.runs) summary.native_coverage |= r.id == decided.run->id && r.native;
        selected.evidence_run = decided.run;
      } else {
        selected.evidence_note = decided.why_none;
        ++undecided;
      }
    }
    std::vector<SelectionReason> kept;
    std::set<std::string> ruled_out, confirmed, stale, no_gpu, no_native;
    // A run on a machine without a GPU launched no kernel: it never shows a kernel was not launched.
    bool launched_kernels = summary.has_evidence && any_kernel_symbol && run_launched(launches_of_test(id), summary.run_id);
    for (const auto& c : checked) {
      auto executed = c.executed.lower_bound({id, kFirstRun});
      if (executed != c.executed.end() && executed->first.first == id) {
        confirmed.insert(c.change->id);
        summary.covered_changed.insert(c.change->id);
        kept.push_back(confirmation(c, id, selected));
        continue;
      }
      if (!summary.has_evidence) continue;
      if (!c.kernels.empty() && !launched_kernels) no_gpu.insert(c.change->id);
      else if (c.native && !summary.native_coverage) no_native.insert(c.change->id);
      else if (lines_map(lines, c, summary.run_commit, entries_only.count(summary.run_id) > 0)) ruled_out.insert(c.change->id);
      else stale.insert(c.change->id);  // its lines changed since the deciding run: static reasons stand
    }
    for (auto& r : selected.reasons) {
      if (is_graph_path(r.kind) && (ruled_out.count(r.changed_symbol) || confirmed.count(r.changed_symbol))) continue;
      if (is_graph_path(r.kind)) {
        if (no_native.count(r.changed_symbol))
          r.text += " (" + describe(*selected.evidence_run) +
                    " recorded no C/C++ coverage: an extension built with coverage flags lets it decide)";
        else if (no_gpu.count(r.changed_symbol))
          r.text += " (" + describe(*selected.evidence_run) + " launched no kernel: it ran without a GPU)";
        else if (stale.count(r.changed_symbol))
          r.text += " (its evidence is stale: the lines changed since " + describe(*selected.evidence_run) + ")";
        else if (!selected.evidence_note.empty())
          r.text += " (no run may narrow it: " + selected.evidence_note + ")";
      }
      kept.push_back(std::move(r));
    }
    selected.reasons = std::move(kept);
    std::erase_if(selected.reaches, [&](std::uint32_t i) { return ruled_out.count(static_selection.path_symbols[i]) > 0; });
    if (selected.reasons.empty()) {
      skipped[id] = {selected.test, "evidence: " + describe(*selected.evidence_run) +
                                        " executed none of the changed symbols its static paths reach"};
      continue;
    }
    out.evidence[id] = std::move(summary);
  }
  if (undecided > 0)
    out.notes.push_back(std::to_string(undecided) +
                        " tests have coverage but no run that may narrow (failed, skipped, without an outcome, "
                        "or at another size): their static paths stand; `fastci explain` names the run");

  // 4. Contexts of the changed symbols, and history, for pruning and risk.
  std::set<std::string> sampled_out, without_arcs;
  for (const auto& c : checked) {
    std::map<std::string, std::set<std::string>> keys;
    std::map<std::string, std::pair<std::set<std::string>, std::uint64_t>> recorded;  // raw keys, calls
    if (!c.kernels.empty()) {
      for (const auto& [executed, commit] : c.executed)
        if (auto it = out.evidence.find(executed.first); it != out.evidence.end() && it->second.run_id == executed.second)
          for (const auto& l : launches_of_test(executed.first))
            if (l.run_id == executed.second &&
                std::any_of(c.kernels.begin(), c.kernels.end(),
                            [&](const evidence::KernelName& k) { return launches_symbol(k, l.launch.name); }))
              keys[executed.first].insert(launch_context_key(l.launch));
    }
    auto contexts = !c.kernels.empty() ? util::Result<std::vector<evidence::StoredContext>>(std::vector<evidence::StoredContext>{})
                             : store.contexts_for_function(c.function);
    if (contexts.ok())
      for (const auto& ctx : *contexts)
        if (without_locals(ctx.context.function) == c.function)
          if (auto id = ids.head_id(ctx.test_id); !id.empty())
            if (auto it = out.evidence.find(id); it != out.evidence.end() && it->second.run_id == ctx.run_id)
              {
                keys[id].insert(framework_context_key(ctx.context));
                recorded[id].first.insert(ctx.key);
                recorded[id].second += ctx.context.count;
              }
    for (auto& [id, summary] : out.evidence) {
      if (!summary.covered_changed.count(c.change->id)) continue;
      if (keys[id].empty()) summary.pairs.insert({c.change->id, "no-context-recorded:" + id});
      // The collector stops recording a function's contexts in a test at its limits: past them the
      // test may have run the change in contexts nobody saw, so it stands for itself.
      const auto& [distinct, calls] = recorded[id];
      const SamplingLimits& limits = sampling[summary.run_id];
      if (distinct.size() >= limits.max_contexts || calls >= limits.max_calls) {
        summary.pairs.insert({c.change->id, "sampling-limit:" + id});
        sampled_out.insert(id);
      }
      // A run of function entries only recorded no arcs: its contexts cannot tell which branches a
      // call took, so two tests whose callers and arguments agree may still run different lines.
      if (entries_only.count(summary.run_id)) {
        summary.pairs.insert({c.change->id, "no-arcs:" + id});
        without_arcs.insert(id);
      }
      for (const auto& k : keys[id]) summary.pairs.insert({c.change->id, k});
    }
  }
  for (auto& [id, summary] : out.evidence) {
    const auto& history = histories[id];
    int deciding_gpus = -1;
    for (const auto& h : history)
      if (summary.has_evidence && h.run_id == summary.run_id) deciding_gpus = h.gpus;
    for (const auto& h : history) {
      // A run at another size (recorded for shrinking) costs what that size costs, not the test's.
      bool same_size = deciding_gpus < 0 || std::max(h.gpus, 1) == std::max(deciding_gpus, 1);
      if (h.duration_seconds && same_size) summary.seconds = *h.duration_seconds;
      if (h.gpus > 0 && same_size) summary.gpus = h.gpus;
      if (h.outcome) summary.recent_failures.push_back(*h.outcome == evidence::Outcome::failed ||
                                                       *h.outcome == evidence::Outcome::error);
    }
    auto n = summary.recent_failures.size();
    for (std::size_t i = n > 3 ? n - 3 : 0; i < n; ++i) summary.failed_recently |= summary.recent_failures[i];
  }

  if (!sampled_out.empty())
    out.notes.push_back(std::to_string(sampled_out.size()) +
                        " tests reached the collector's sampling limit on a changed symbol (contexts or calls per "
                        "function per test): their unrecorded contexts may differ, so they are never pruned for it");
  if (!without_arcs.empty())
    out.notes.push_back(std::to_string(without_arcs.size()) +
                        " tests ran the change in runs that recorded function entries only (no coverage.py): "
                        "their contexts hold no branches, so they are never pruned for it");
  out.selection.path_symbols = static_selection.path_symbols;
  for (auto& [id, selected] : candidates)
    if (!skipped.count(id)) out.selection.selected.push_back(std::move(selected));
  for (auto& [id, s] : skipped) out.selection.skipped.push_back(std::move(s));
  if (out.symbols_stale > 0)
    out.notes.push_back(std::to_string(out.symbols_stale) +
                        " changed symbols have only stale evidence (their lines changed since the runs): "
                        "static paths decide for them");
  return out;
}

}  // namespace fastci::planner
