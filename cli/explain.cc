#include "cli/explain.h"

#include <iomanip>
#include <sstream>

namespace fastci::cli {
namespace {

using nlohmann::json;

const json* find_in(const json& plan, const char* section, const std::string& id) {
  if (!plan.contains(section)) return nullptr;
  for (const auto& entry : plan[section])
    if (entry.value("id", "") == id) return &entry;
  return nullptr;
}

/// Which run's coverage decided for the test (plan.json's evidence_run), or why none may.
void write_evidence_run(std::ostringstream& out, const json& entry) {
  if (!entry.contains("evidence_run")) return;
  const json& run = entry["evidence_run"];
  if (run.contains("none")) {
    out << "  no evidence may narrow it: " << run.value("none", "") << "\n";
    return;
  }
  out << "  evidence decided by run " << run.value("id", 0) << " at " << run.value("commit", "").substr(0, 12) << " ("
      << run.value("outcome", "") << ", " << run.value("gpus", 0) << " GPUs)\n";
}

void write_witness(std::ostringstream& out, const json& witness) {
  for (const auto& step : witness) {
    out << "      " << step.value("display", step.value("symbol", ""));
    if (step.contains("edge")) out << "\n        --" << step["edge"].get<std::string>() << "-->";
    out << "\n";
  }
}

/// Three significant digits: enough to compare tests, short enough to read.
std::string short_number(double value) {
  std::ostringstream out;
  out << std::setprecision(3) << value;
  return out.str();
}

/// Where the test runs in the plan and why there: its lane, risk and risk per GPU-second, and the
/// features that made the risk (those that are not 0).
void write_order(std::ostringstream& out, const json& plan, const json& entry) {
  std::size_t position = 0;
  for (const auto& t : plan["tests"]) {
    ++position;
    if (&t == &entry) break;
  }
  out << "  runs " << position << " of " << plan["tests"].size();
  if (entry.contains("failure_class"))
    out << ", in the " << entry["failure_class"].value("kind", "") << " lane after every other test ("
        << entry["failure_class"].value("evidence", "") << ")";
  if (entry.contains("risk")) {
    const json& risk = entry["risk"];
    out << "; risk " << short_number(risk.value("score", 0.0)) << ", "
        << short_number(risk.value("per_gpu_second", 0.0))
        << " per GPU-second (the order's key)";
    std::string features;
    const json values = risk.value("features", json::object());
    for (const auto& [name, value] : values.items())
      if (value.is_number() && value.get<double>() != 0)
        features += (features.empty() ? "" : ", ") + name + " " + short_number(value.get<double>());
    if (!features.empty()) out << "; features: " << features;
  }
  out << "\n";
}

}  // namespace

std::string explain_test(const json& plan, const std::string& test_id) {
  std::ostringstream out;
  std::string range = plan.value("base", "").substr(0, 12) + ".." + plan.value("head", "").substr(0, 12);
  if (const json* t = find_in(plan, "tests", test_id)) {
    out << test_id << ": SELECTED for " << range << "\n";
    for (const auto& r : (*t)["reasons"]) {
      out << "  - " << r.value("kind", "") << ": " << r.value("text", "") << "\n";
      if (r.contains("witness")) {
        out << "    path (test first, changed symbol last):\n";
        write_witness(out, r["witness"]);
      }
    }
    write_evidence_run(out, *t);
    write_order(out, plan, *t);
    if (t->contains("stands_for"))
      out << "  stands for pruned tests whose every changed-symbol context it exercises: "
          << (*t)["stands_for"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (t->contains("shrink"))
      out << "  shrunk (" << (*t)["shrink"].value("mode", "") << "): " << (*t)["shrink"].value("reason", "") << "; "
          << (*t)["shrink"].value("full_gpus", 0) << " GPUs x " << (*t)["shrink"].value("full_seconds", 0.0)
          << " s as written\n";
    if (t->contains("overrides") && !(*t)["overrides"].empty())
      out << "  overrides: " << (*t)["overrides"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return out.str();
  }
  if (const json* t = find_in(plan, "pruned", test_id)) {
    out << test_id << ": PRUNED for " << range << "\n  " << t->value("reason", "") << "\n";
    if (t->contains("kept_by")) out << "  stands in for it: " << (*t)["kept_by"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return out.str();
  }
  if (const json* t = find_in(plan, "quarantined", test_id)) {
    out << test_id << ": QUARANTINED for " << range << "\n  " << t->value("reason", "") << "\n";
    return out.str();
  }
  if (const json* t = find_in(plan, "skipped", test_id)) {
    out << test_id << ": SKIPPED for " << range << "\n  " << t->value("reason", "") << "\n";
    if (find_in(plan, "audit", test_id))
      out << "  run anyway as an audit of this skip (--audit-skipped): last, never blocking; a failure is an escape\n";
    write_evidence_run(out, *t);
    if (plan.contains("changes")) {
      out << "  changed symbols it does not reach:\n";
      std::size_t n = 0;
      for (const auto& s : plan["changes"]["symbols"]) {
        if (++n > 10) break;
        out << "    " << s.value("change", "") << " " << s.value("name", "") << " (" << s.value("file", "")
            << ":" << s.value("first_line", 0) << ")\n";
      }
    }
    return out.str();
  }
  return {};
}

std::vector<std::string> similar_test_ids(const json& plan, const std::string& fragment, std::size_t limit) {
  std::vector<std::string> out;
  for (const char* section : {"tests", "pruned", "skipped", "quarantined"}) {
    if (!plan.contains(section)) continue;
    for (const auto& entry : plan[section]) {
      std::string id = entry.value("id", "");
      if (id.find(fragment) != std::string::npos && out.size() < limit) out.push_back(id);
    }
  }
  return out;
}

}  // namespace fastci::cli
