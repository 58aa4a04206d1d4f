#include "planner/plan_json.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>

#include "planner/risk.h"
#include "planner/selection_drivers.h"

namespace fastci::planner {
namespace {

using nlohmann::json;

json witness_json(const std::vector<callgraph::PathStep>& witness) {
  json steps = json::array();
  for (std::size_t i = 0; i < witness.size(); ++i) {
    json step = {{"symbol", witness[i].symbol_id}, {"display", witness[i].display}};
    if (i + 1 < witness.size()) step["edge"] = frontend::to_string(witness[i].kind_to_next);
    steps.push_back(std::move(step));
  }
  return steps;
}

json test_json(const frontend::Test& t) {
  return {{"id", t.id}, {"file", t.file}, {"line", t.line}, {"gpus", t.gpus}, {"marks", t.marks}};
}

json collection_checks_json(const std::vector<CollectionCheck>& checks) {
  json out = json::array();
  for (const auto& c : checks)
    out.push_back({{"kind", "collect"}, {"gpus", 0}, {"command", c.command()}, {"files", c.files}, {"reasons", c.reasons}});
  return out;
}

json audit_json(const Plan& plan) {
  json out = json::array();
  for (const auto& a : plan.audit) {
    json entry = test_json(a.test);
    entry["kind"] = "audit";
    entry["blocking"] = false;
    entry["skipped_because"] = a.skipped_because;
    entry["command"] = {"python", "-m", "pytest", a.test.id};
    out.push_back(std::move(entry));
  }
  return out;
}

json changes_json(const ChangeSet& c) {
  json files = json::array();
  for (const auto& f : c.files) {
    json file = {{"path", f.path}, {"status", to_string(f.status)}, {"kind", to_string(f.kind)},
                 {"lines_added", f.lines_added}, {"lines_removed", f.lines_removed},
                 {"symbols", f.symbols}};
    if (!f.old_path.empty()) file["old_path"] = f.old_path;
    if (!f.note.empty()) file["note"] = f.note;
    files.push_back(std::move(file));
  }
  json symbols = json::array();
  for (const auto& s : c.symbols) {
    json symbol = {{"id", s.id}, {"change", to_string(s.change)}, {"kind", frontend::to_string(s.kind)},
                   {"language", frontend::to_string(s.language)}, {"name", s.qualified_name},
                   {"file", s.file}, {"first_line", s.first_line}, {"last_line", s.last_line}};
    if (!s.renamed_from.empty()) symbol["renamed_from"] = s.renamed_from;
    symbols.push_back(std::move(symbol));
  }
  json docstrings = json::array();
  for (const auto& s : c.docstrings)
    docstrings.push_back({{"id", s.id}, {"name", s.qualified_name}, {"file", s.file}, {"first_line", s.first_line}});
  json widenings = json::array();
  for (const auto& w : c.widenings)
    widenings.push_back({{"scope", to_string(w.scope)}, {"file", w.file}, {"reason", w.reason},
                         {"detail", w.detail}});
  return {{"files", files}, {"symbols", symbols}, {"docstrings", docstrings}, {"widenings", widenings}};
}

json reasons_json(const std::vector<SelectionReason>& reasons) {
  json out = json::array();
  for (const auto& r : reasons) {
    json reason = {{"kind", to_string(r.kind)}, {"text", r.text}};
    if (!r.changed_symbol.empty()) reason["changed_symbol"] = r.changed_symbol;
    if (!r.witness.empty()) reason["witness"] = witness_json(r.witness);
    out.push_back(std::move(reason));
  }
  return out;
}

/// Which run's coverage decided for the test, or why none may: the plan says what narrowed it.
void add_evidence_run(const SelectedTest& s, json& entry) {
  if (s.evidence_run)
    entry["evidence_run"] = {{"id", s.evidence_run->id}, {"commit", s.evidence_run->commit},
                             {"outcome", s.evidence_run->outcome}, {"gpus", s.evidence_run->gpus}};
  else if (!s.evidence_note.empty())
    entry["evidence_run"] = {{"none", s.evidence_note}};
}

json risk_json(const PlanEntry& e) {
  json features;
  auto values = e.features.values();
  for (std::size_t i = 0; i < values.size(); ++i) features[RiskFeatures::names()[i]] = values[i];
  return {{"score", e.risk},
          {"per_gpu_second", risk_per_gpu_second(e.risk, e.gpu_seconds())},
          {"features", features}};
}

/// The lists of a plan that grow with the number of tests, each entry made on demand: the text
/// writer dumps one entry at a time instead of holding a document of thousands of tests.
struct PlanLists {
  explicit PlanLists(const Plan& plan) : plan(plan) {
    for (const auto& x : plan.prioritized.pruned)
      for (const auto& k : x.kept_by) stands_for[k].push_back(x.test.id);
  }

  json test(const PlanEntry& e) const {
    json entry = test_json(e.selected.test);
    entry["gpus"] = e.gpus;
    entry["command"] = entry_command(e);
    entry["overrides"] = e.overrides;
    if (!e.shrink_reason.empty()) {
      entry["shrink"] = {{"reason", e.shrink_reason}, {"mode", e.shrink_mode}, {"full_seconds", e.full_seconds},
                         {"full_gpus", e.full_gpus}};
    }
    if (e.failure_class.kind != FailureClass::none)
      entry["failure_class"] = {{"kind", to_string(e.failure_class.kind)}, {"evidence", e.failure_class.evidence}};
    entry["predicted_seconds"] = e.predicted_seconds;
    entry["duration_known"] = e.duration_known;
    entry["risk"] = risk_json(e);
    entry["distance"] = e.selected.distance;
    entry["reasons"] = reasons_json(e.selected.reasons);
    add_evidence_run(e.selected, entry);
    if (auto it = stands_for.find(e.selected.test.id); it != stands_for.end()) entry["stands_for"] = it->second;
    return entry;
  }

  json pruned(const PrunedEntry& x) const {
    json entry = test_json(x.test);
    entry["reason"] = x.reason;
    entry["kept_by"] = x.kept_by;
    entry["predicted_seconds"] = x.predicted_seconds;
    return entry;
  }

  /// Skipped by selection, then over the budget.
  std::size_t skipped_count() const { return plan.selection.skipped.size() + plan.prioritized.over_budget.size(); }
  json skipped(std::size_t i) const {
    const auto& selection_skipped = plan.selection.skipped;
    const bool budget = i >= selection_skipped.size();
    const auto& s = budget ? plan.prioritized.over_budget[i - selection_skipped.size()] : selection_skipped[i];
    json entry = test_json(s.test);
    entry["reason"] = s.reason;
    if (budget) entry["budget"] = true;
    return entry;
  }

  json quarantined(const SkippedTest& s) const {
    json entry = test_json(s.test);
    entry["reason"] = s.reason;
    return entry;
  }

  const Plan& plan;
  std::map<std::string, std::vector<std::string>> stands_for;  ///< kept test -> pruned tests it covers
};

/// One list of tests of the plan document: its member name, length and entries.
struct PlanList {
  const char* name;
  std::size_t count;
  std::function<json(std::size_t)> entry;
};

/// The four lists, in the order the document's sorted members have them.
std::array<PlanList, 4> plan_lists(const PlanLists& lists) {
  const Prioritized& p = lists.plan.prioritized;
  return {{{"pruned", p.pruned.size(), [&lists](std::size_t i) { return lists.pruned(lists.plan.prioritized.pruned[i]); }},
           {"quarantined", p.quarantined.size(),
            [&lists](std::size_t i) { return lists.quarantined(lists.plan.prioritized.quarantined[i]); }},
           {"skipped", lists.skipped_count(), [&lists](std::size_t i) { return lists.skipped(i); }},
           {"tests", p.ordered.size(), [&lists](std::size_t i) { return lists.test(lists.plan.prioritized.ordered[i]); }}}};
}

json drivers_json(const Plan& plan) {
  json out = json::array();
  for (const auto& d : selection_drivers(plan.selection))
    out.push_back({{"kind", to_string(d.kind)}, {"changed_symbol", d.changed_symbol}, {"through", d.through},
                   {"tests", d.tests}});
  return out;
}

json diagnostics_json(const Plan& plan) {
  json diagnostics = json::array();
  for (const auto& d : plan.diagnostics)
    diagnostics.push_back({{"severity", d.severity == frontend::Diagnostic::Severity::error ? "error" : "warning"},
                           {"file", d.file}, {"line", d.line}, {"message", d.message}});
  return diagnostics;
}

/// Everything but the four lists of tests, which are left empty.
json plan_header_json(const Plan& plan) {
  const auto& p = plan.prioritized;
  const auto& t = plan.timing;
  const auto& pr = p.prediction;
  return {
      {"schema", kPlanSchema},
      {"repository", plan.repository},
      {"base", plan.changes.base},
      {"head", plan.changes.head},
      {"base_ref", plan.base_ref_commit},
      {"diff", plan.diff_mode},
      {"config", plan.config_source},
      {"evidence", plan.evidence_store},
      {"prune", to_string(plan.options.prune)},
      {"summary",
       {{"tests_total", plan.tests_total()},
        {"why_every_test", plan.why_every_test()},
        {"why_most_tests", plan.why_most_tests()},
        {"drivers", drivers_json(plan)},
        {"selected", p.ordered.size()},
        {"pruned", p.pruned.size()},
        {"skipped", plan.selection.skipped.size() + p.over_budget.size()},
        {"over_budget", p.over_budget.size()},
        {"quarantined", p.quarantined.size()},
        {"audit", {{"fraction", plan.audit_fraction}, {"tests", plan.audit.size()}}},
        {"widened", plan.widened()},
        {"changed_symbols", plan.changes.symbols.size()},
        {"notes", plan.notes},
        {"graph", {{"symbols", plan.symbols}, {"edges", plan.edges}}},
        {"prediction",
         {{"cluster_gpus", pr.cluster_gpus}, {"plan_latency_seconds", pr.plan_latency_seconds},
          {"plan_gpu_hours", pr.plan_gpu_hours}, {"all_latency_seconds", pr.all_latency_seconds},
          {"all_gpu_hours", pr.all_gpu_hours}}},
        {"analysis",
         {{"files_indexed", t.files_indexed}, {"files_parsed", t.files_parsed},
          {"linked_from_cache", t.linked_from_cache}, {"linked_from_base", t.linked_from_base},
          {"native_units", t.native_units}, {"native_units_parsed", t.native_units_parsed},
          {"python_native_links", t.python_native_links},
          {"index_seconds", t.index_seconds}, {"link_seconds", t.link_seconds},
          {"native_seconds", t.native_seconds},
          {"select_seconds", t.select_seconds}, {"total_seconds", t.total_seconds}}}}},
      {"changes", changes_json(plan.changes)},
      {"tests", json::array()},
      {"collection_checks", collection_checks_json(plan.collection_checks)},
      {"audit", audit_json(plan)},
      {"pruned", json::array()},
      {"skipped", json::array()},
      {"quarantined", json::array()},
      {"diagnostics", diagnostics_json(plan)},
  };
}

std::string dump(const json& value) { return value.dump(2, ' ', false, json::error_handler_t::replace); }

/// `make(i)` for i < count as the array nlohmann's dump(2) writes for a member of the top-level
/// object: elements at indent 4, the closing bracket at indent 2.
void write_array(std::ostream& out, std::size_t count, const std::function<json(std::size_t)>& make) {
  if (count == 0) {
    out << "[]";
    return;
  }
  out << "[\n";
  std::string indented;
  for (std::size_t i = 0; i < count; ++i) {
    indented.assign("    ");
    // A dumped JSON text has no raw newline inside a string: every newline starts a line to indent.
    for (char c : dump(make(i))) {
      indented += c;
      if (c == '\n') indented += "    ";
    }
    indented += i + 1 < count ? ",\n" : "\n";
    out << indented;
  }
  out << "  ]";
}

}  // namespace

json plan_to_json(const Plan& plan) {
  json out = plan_header_json(plan);
  const PlanLists lists(plan);
  for (const auto& list : plan_lists(lists))
    for (std::size_t i = 0; i < list.count; ++i) out[list.name].push_back(list.entry(i));
  return out;
}

void write_plan_json(const Plan& plan, std::ostream& out) {
  const PlanLists lists(plan);
  const auto in_order = plan_lists(lists);
  json header = plan_header_json(plan);
  // Each list is a marker in the header's text, replaced by the list written entry by entry.
  for (const auto& list : in_order) header[list.name] = std::string("\x01") + list.name;
  const std::string text = dump(header);
  std::size_t at = 0;
  for (const auto& list : in_order) {
    // Only a member of the top-level object starts a line with two spaces: no string holds a newline.
    const std::string key = std::string("\n  \"") + list.name + "\": ";
    const std::string marker = key + "\"\\u0001" + list.name + "\"";
    const std::size_t found = text.find(marker, at);
    out.write(text.data() + at, static_cast<std::streamsize>(found + key.size() - at));
    write_array(out, list.count, list.entry);
    at = found + marker.size();
  }
  out.write(text.data() + at, static_cast<std::streamsize>(text.size() - at));
  out << '\n';
}

std::string plan_json_text(const Plan& plan) {
  std::ostringstream out;
  write_plan_json(plan, out);
  return std::move(out).str();
}

}  // namespace fastci::planner
