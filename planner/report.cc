#include "planner/report.h"

#include <cstdio>
#include <sstream>

namespace fastci::planner {
namespace {

std::string short_commit(const std::string& id) { return id.substr(0, 12); }

void write_witness(std::ostringstream& out, const std::vector<callgraph::PathStep>& witness) {
  for (std::size_t i = 0; i < witness.size(); ++i) {
    out << (i == 0 ? "  - " : "    ") << "`" << witness[i].display << "`";
    if (i + 1 < witness.size()) out << " —" << frontend::to_string(witness[i].kind_to_next) << "→";
    out << "\n";
  }
}

void write_changes(std::ostringstream& out, const Plan& plan) {
  out << "## Changed symbols (" << plan.changes.symbols.size() << ")\n\n";
  if (plan.changes.symbols.empty()) out << "None.\n";
  for (const auto& s : plan.changes.symbols) {
    out << "- " << to_string(s.change) << " " << frontend::to_string(s.kind) << " `" << s.qualified_name
        << "` (" << s.file << ":" << s.first_line << "-" << s.last_line << ")";
    if (!s.renamed_from.empty()) out << " from `" << s.renamed_from << "`";
    out << "\n";
  }
  out << "\n### Files\n\n| file | status | kind | +/- | note |\n|---|---|---|---|---|\n";
  for (const auto& f : plan.changes.files)
    out << "| `" << f.path << "` | " << to_string(f.status) << " | " << to_string(f.kind) << " | +"
        << f.lines_added << "/-" << f.lines_removed << " | " << f.note << " |\n";
  out << "\n";
}

void write_widenings(std::ostringstream& out, const Plan& plan) {
  if (plan.changes.widenings.empty() && plan.diagnostics.empty()) return;
  out << "## Widened selection\n\nfastci could not map every part of this change exactly and selected more "
         "tests to stay safe:\n\n";
  for (const auto& w : plan.changes.widenings)
    out << "- **" << to_string(w.scope) << "** `" << w.file << "`: " << w.reason << "\n";
  std::size_t shown = 0;
  for (const auto& d : plan.diagnostics) {
    if (++shown > 20) {
      out << "- … " << plan.diagnostics.size() - 20 << " more diagnostics in plan.json\n";
      break;
    }
    out << "- diagnostic `" << d.file << ":" << d.line << "`: " << d.message << "\n";
  }
  out << "\n";
}

std::string hours(double h) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", h);
  return buffer;
}

std::string minutes(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f min", seconds / 60);
  return buffer;
}

void write_selected(std::ostringstream& out, const Plan& plan) {
  const auto& ordered = plan.prioritized.ordered;
  out << "## Tests to run, highest risk per GPU-second first (" << ordered.size() << ")\n\n";
  for (const auto& e : ordered) {
    const auto& s = e.selected;
    out << "- `" << s.test.id << "` — risk " << hours(e.risk) << ", " << e.gpus << " GPU"
        << (e.gpus == 1 ? "" : "s") << ", " << (e.duration_known ? "" : "~") << static_cast<int>(e.predicted_seconds)
        << " s";
    if (!e.overrides.empty()) {
      out << ", shrunk:";
      for (const auto& [k, v] : e.overrides) out << " " << k << "=" << v;
    }
    out << "\n";
    for (const auto& r : s.reasons) {
      out << "  - " << to_string(r.kind) << ": " << r.text << "\n";
      if (!r.witness.empty()) {
        std::ostringstream path;
        write_witness(path, r.witness);
        out << "  <details><summary>witness path</summary>\n\n" << path.str() << "\n  </details>\n";
      }
      if (s.reasons.size() > 3 && &r == &s.reasons[2]) {
        out << "  - … " << s.reasons.size() - 3 << " more reasons in plan.json\n";
        break;
      }
    }
  }
  out << "\n";
  if (!plan.prioritized.pruned.empty()) {
    out << "## Pruned as redundant (" << plan.prioritized.pruned.size() << ")\n\n"
        << "Each runs the changed code only in contexts that a kept test already exercises.\n\n";
    for (const auto& p : plan.prioritized.pruned) out << "- `" << p.test.id << "`: " << p.reason << "\n";
    out << "\n";
  }
  if (!plan.prioritized.over_budget.empty()) {
    out << "## Left out by the time budget (" << plan.prioritized.over_budget.size() << ")\n\n";
    for (const auto& b : plan.prioritized.over_budget) out << "- `" << b.test.id << "`\n";
    out << "\n";
  }
}

void write_skipped(std::ostringstream& out, const Plan& plan, std::size_t max_listed) {
  const auto& skipped = plan.selection.skipped;
  out << "## Skipped tests (" << skipped.size() << ")\n\n";
  if (skipped.empty()) return;
  out << "Each has no call-graph path to a changed symbol and no rule selects it.\n\n";
  for (std::size_t i = 0; i < skipped.size() && i < max_listed; ++i)
    out << "- `" << skipped[i].test.id << "`\n";
  if (skipped.size() > max_listed) out << "- … " << skipped.size() - max_listed << " more in plan.json\n";
  out << "\n";
}

}  // namespace

std::string render_markdown_report(const Plan& plan, std::size_t max_listed_skipped) {
  std::ostringstream out;
  const auto& sel = plan.selection;
  out << "# fastci impact report\n\n"
      << "`" << short_commit(plan.changes.base) << "..` `" << short_commit(plan.changes.head) << "`: "
      << plan.changes.symbols.size() << " changed symbols in " << plan.changes.files.size() << " files; "
      << "**" << plan.prioritized.ordered.size() << " of " << sel.selected.size() + sel.skipped.size()
      << " tests to run**, " << plan.prioritized.pruned.size() << " pruned, "
      << sel.skipped.size() + plan.prioritized.over_budget.size() << " skipped"
      << (plan.widened() ? " (selection widened, see below)" : "") << ". Analysis took "
      << static_cast<int>(plan.timing.total_seconds * 1000) << " ms ("
      << plan.timing.files_parsed << " of " << plan.timing.files_indexed << " files parsed, the rest cached).\n\n";
  const auto& pr = plan.prioritized.prediction;
  if (pr.cluster_gpus > 0)
    out << "Predicted on " << pr.cluster_gpus << " GPUs: **" << minutes(pr.plan_latency_seconds) << "** and "
        << hours(pr.plan_gpu_hours) << " GPU-hours, against " << minutes(pr.all_latency_seconds) << " and "
        << hours(pr.all_gpu_hours) << " GPU-hours to run everything"
        << (plan.evidence_store.empty() ? " (no evidence store: durations are defaults)" : "") << ".\n\n";
  for (const auto& note : plan.notes) out << "> " << note << "\n";
  if (!plan.notes.empty()) out << "\n";
  write_changes(out, plan);
  write_widenings(out, plan);
  for (const auto& c : plan.collection_checks) {
    out << "Import-time check (CPU, 0 GPUs): `pytest --collect-only` over " << c.files.size()
        << " test files that import a module whose imports changed";
    for (std::size_t i = 0; i < c.reasons.size() && i < 3; ++i) out << (i ? "; " : ": ") << c.reasons[i];
    if (c.reasons.size() > 3) out << "; and " << c.reasons.size() - 3 << " more";
    out << ".\n\n";
  }
  write_selected(out, plan);
  write_skipped(out, plan, max_listed_skipped);
  return out.str();
}

}  // namespace fastci::planner
