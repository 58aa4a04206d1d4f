#include "planner/evidence_select.h"

#include <algorithm>

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

/// Lines of a definition's body: its header runs at import time, not when it is called.
Lines body_lines(const frontend::Symbol& s) {
  return s.last_line > s.first_line ? Lines{s.first_line + 1, s.last_line} : Lines{s.first_line, s.last_line};
}

bool checkable(const ChangedSymbol& s) {
  return s.change != SymbolChange::added &&
         (s.kind == SymbolKind::function || s.kind == SymbolKind::method || s.kind == SymbolKind::kernel) &&
         s.language == frontend::Language::python;
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

struct CheckedSymbol {
  const ChangedSymbol* change;
  frontend::Symbol base;  ///< the symbol at base (lines, file)
  std::string function;   ///< evidence function name
  /// (head test id, run id) pairs that executed its body, per evidence commit.
  std::set<std::pair<std::string, std::int64_t>> executed;
  bool stale_everywhere = true;
};

}  // namespace

std::string evidence_function_name(const frontend::Symbol& symbol) {
  std::string module = module_of_path(symbol.file);
  std::string name = symbol.qualified_name;
  if (name.starts_with(module + ".")) name = name.substr(module.size() + 1);
  return symbol.file + "::" + without_locals(name);
}

EvidenceSelection refine_with_evidence(const Selection& static_selection, const ChangeSet& changes,
                                       const BaseSymbolLookup& base_symbol, evidence::Store& store,
                                       LineMapper& lines) {
  EvidenceSelection out;
  TestIdMap ids(static_selection);
  std::set<std::string> commits;
  if (auto runs = store.runs(); runs.ok())
    for (const auto& r : *runs) commits.insert(r.run.commit);

  // 1. Which tests executed each changed symbol, in runs whose lines can be carried to base.
  std::vector<CheckedSymbol> checked;
  for (const auto& s : changes.symbols) {
    if (!checkable(s)) continue;
    const frontend::Symbol* base = base_symbol(s.change == SymbolChange::renamed ? s.renamed_from : s.id);
    if (!base) continue;
    CheckedSymbol c{&s, *base, evidence_function_name(*base), {}, true};
    for (const auto& commit : commits) {
      auto mapped = lines.to_evidence_commit(base->file, body_lines(*base), commit);
      if (!mapped) continue;
      c.stale_everywhere = false;
      auto hits = store.tests_covering(base->file, *mapped);
      if (!hits.ok()) continue;
      for (const auto& h : *hits)
        if (h.commit == commit)
          if (auto id = ids.head_id(h.test_id); !id.empty()) c.executed.insert({id, h.run_id});
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
    for (const auto& [id, run] : c.executed)
      if (auto it = skipped.find(id); it != skipped.end()) {
        candidates[id] = SelectedTest{it->second.test, {}, -1};
        skipped.erase(it);
      }

  // 3. Per test, its latest coverage run decides symbol by symbol.
  for (auto& [id, selected] : candidates) {
    TestEvidenceSummary summary;
    auto coverage = store.coverage_of(id);
    if ((!coverage.ok() || coverage->empty()) && id.find('/') != std::string::npos) {
      // The evidence may name it relative to the folder pytest ran in.
      for (auto slash = id.find('/'); slash != std::string::npos && (!coverage.ok() || coverage->empty());
           slash = id.find('/', slash + 1))
        coverage = store.coverage_of(id.substr(slash + 1));
    }
    if (coverage.ok() && !coverage->empty()) {
      summary.has_evidence = true;
      summary.run_id = coverage->front().run_id;
      summary.run_commit = coverage->front().commit;
    }
    std::vector<SelectionReason> kept;
    std::set<std::string> ruled_out;
    for (const auto& c : checked) {
      if (!summary.has_evidence) break;
      auto mapped = lines.to_evidence_commit(c.base.file, body_lines(c.base), summary.run_commit);
      if (!mapped) continue;  // stale for this test: its static reasons stand
      if (c.executed.count({id, summary.run_id})) {
        summary.covered_changed.insert(c.change->id);
        kept.push_back({SelectionReason::Kind::evidence,
                        "executed " + std::string(to_string(c.change->change)) + " " + c.change->qualified_name +
                            " in run " + std::to_string(summary.run_id) + " at " + summary.run_commit.substr(0, 12),
                        c.change->id, {}});
      } else {
        ruled_out.insert(c.change->id);
      }
    }
    for (auto& r : selected.reasons)
      if (!(is_graph_path(r.kind) && ruled_out.count(r.changed_symbol))) {
        if (is_graph_path(r.kind) && summary.has_evidence)
          r.text += " (no fresh evidence for it)";
        kept.push_back(std::move(r));
      }
    selected.reasons = std::move(kept);
    if (selected.reasons.empty()) {
      skipped[id] = {selected.test, "evidence: its run " + std::to_string(summary.run_id) + " at " +
                                        summary.run_commit.substr(0, 12) +
                                        " executed none of the changed symbols its static paths reach"};
      continue;
    }
    out.evidence[id] = std::move(summary);
  }

  // 4. Contexts of the changed symbols, and history, for pruning and risk.
  for (const auto& c : checked) {
    auto contexts = store.contexts_for_function(c.function);
    std::map<std::string, std::set<std::string>> keys;
    if (contexts.ok())
      for (const auto& ctx : *contexts)
        if (without_locals(ctx.context.function) == c.function)
          if (auto id = ids.head_id(ctx.test_id); !id.empty())
            if (auto it = out.evidence.find(id); it != out.evidence.end() && it->second.run_id == ctx.run_id)
              keys[id].insert(ctx.key);
    for (auto& [id, summary] : out.evidence) {
      if (!summary.covered_changed.count(c.change->id)) continue;
      if (keys[id].empty()) summary.pairs.insert({c.change->id, "no-context-recorded:" + id});
      for (const auto& k : keys[id]) summary.pairs.insert({c.change->id, k});
    }
  }
  for (auto& [id, summary] : out.evidence) {
    auto history = store.history(id);
    if (!history.ok()) continue;
    for (const auto& h : *history) {
      if (h.duration_seconds) summary.seconds = *h.duration_seconds;
      if (h.gpus > 0) summary.gpus = h.gpus;
      if (h.outcome) summary.recent_failures.push_back(*h.outcome == evidence::Outcome::failed ||
                                                       *h.outcome == evidence::Outcome::error);
    }
    auto n = summary.recent_failures.size();
    for (std::size_t i = n > 3 ? n - 3 : 0; i < n; ++i) summary.failed_recently |= summary.recent_failures[i];
  }

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
