#include "planner/report.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "util/format.h"

namespace fastci::planner {
namespace {

std::string short_commit(const std::string& id) { return id.substr(0, 12); }

using util::fixed;

std::string minutes(double seconds) { return fixed(seconds / 60, 1) + " min"; }

/// Plain text for a table cell or a list line: one line, pipes escaped.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r') out += ' ';
    else if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

/// An inline code span that survives any text: test ids come from the pull request, and a
/// backtick, a pipe or a newline in one must not break out of it or of a table cell.
std::string code(const std::string& text) {
  std::string clean = cell(text);
  std::size_t run = 0, longest = 0;
  for (char c : clean) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  bool pad = clean.empty() || clean.front() == '`' || clean.back() == '`';
  return fence + (pad ? " " : "") + clean + (pad ? " " : "") + fence;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// How many items of each list the report shows; the rest are in plan.json and the HTML report.
struct Limits {
  std::size_t widenings = 40, symbols = 40, files = 40, test_files = 200, witnesses = 10, shrunk = 30,
              pruned_files = 40, skipped_files = 40, over_budget = 30, diagnostics = 20;

  Limits halved() const {
    auto h = [](std::size_t n) { return n > 1 ? n / 2 : 0; };
    return {h(widenings),    h(symbols),       h(files),       h(test_files), h(witnesses),
            h(shrunk),       h(pruned_files),  h(skipped_files), h(over_budget), h(diagnostics)};
  }
  bool exhausted() const { return test_files == 0 && skipped_files == 0 && symbols == 0 && widenings == 0; }
};

void more_line(std::ostringstream& out, std::size_t shown, std::size_t total, const char* where = "plan.json") {
  if (total > shown) out << "- … " << total - shown << " more in " << where << "\n";
}

void write_headline(std::ostringstream& out, const Plan& plan) {
  const auto& p = plan.prioritized;
  const auto& sel = plan.selection;
  out << "# fastci impact report\n\n"
      << "`" << short_commit(plan.changes.base) << "..` `" << short_commit(plan.changes.head) << "`";
  if (!plan.base_ref_commit.empty() && plan.base_ref_commit != plan.changes.base)
    out << " (from the merge base with `" << short_commit(plan.base_ref_commit) << "`)";
  out << ": " << plural(plan.changes.symbols.size(), "changed symbol", "changed symbols") << " in "
      << plural(plan.changes.files.size(), "file", "files") << "; **" << p.ordered.size() << " of "
      << plan.tests_total() << " tests to run**, " << p.pruned.size() << " pruned, "
      << sel.skipped.size() + p.over_budget.size() << " skipped";
  if (!p.quarantined.empty()) out << ", " << p.quarantined.size() << " quarantined";
  if (!plan.collection_checks.empty()) {
    std::size_t files = 0;
    for (const auto& c : plan.collection_checks) files += c.files.size();
    out << ", " << plural(files, "test file", "test files") << " collected on CPU";
  }
  out << (plan.widened() ? " (selection widened, see below)" : "") << ". Analysis took "
      << static_cast<int>(plan.timing.total_seconds * 1000) << " ms (" << plan.timing.files_parsed << " of "
      << plan.timing.files_indexed << " files parsed, the rest cached).\n\n";
  const auto& pr = p.prediction;
  if (pr.cluster_gpus > 0) {
    out << "Predicted on " << pr.cluster_gpus << " GPUs: **" << minutes(pr.plan_latency_seconds) << "** and "
        << fixed(pr.plan_gpu_hours, 2) << " GPU-hours, against " << minutes(pr.all_latency_seconds) << " and "
        << fixed(pr.all_gpu_hours, 2) << " GPU-hours to run everything";
    if (pr.all_gpu_hours > 0)
      out << " (" << fixed(100.0 * (1 - pr.plan_gpu_hours / pr.all_gpu_hours), 0) << "% fewer GPU-hours)";
    out << (plan.evidence_store.empty() ? "; no evidence store: durations are defaults" : "") << ".\n\n";
  }
  if (auto why = plan.why_every_test(); !why.empty()) out << "> **Every test runs.** Because " << cell(why) << ".\n\n";
  if (auto why = plan.why_most_tests(); !why.empty()) out << "> **Most tests run.** " << cell(why) << ".\n\n";
}

void write_widenings(std::ostringstream& out, const Plan& plan, const Limits& limits) {
  const auto& widenings = plan.changes.widenings;
  if (widenings.empty() && plan.diagnostics.empty()) return;
  // Diagnostics alone widened nothing (a unit with Clang errors keeps its facts): saying "widened"
  // over them would send readers looking for a cause that is not there.
  if (widenings.empty()) {
    out << "## Diagnostics (" << plan.diagnostics.size()
        << ")\n\nWhat fastci could not read fully; none of it widened this change's selection:\n\n";
  } else {
    out << "## Widened selection (" << widenings.size() << ")\n\nfastci could not map every part of this change "
           "exactly and selected more tests to stay safe:\n\n";
  }
  std::size_t shown = std::min(widenings.size(), limits.widenings);
  for (std::size_t i = 0; i < shown; ++i)
    out << "- **" << to_string(widenings[i].scope) << "** " << code(widenings[i].file) << ": "
        << cell(widenings[i].reason) << "\n";
  more_line(out, shown, widenings.size());
  std::size_t diagnostics = std::min(plan.diagnostics.size(), limits.diagnostics);
  for (std::size_t i = 0; i < diagnostics; ++i) {
    const auto& d = plan.diagnostics[i];
    out << "- diagnostic " << code(d.file + ":" + std::to_string(d.line)) << ": " << cell(d.message) << "\n";
  }
  if (plan.diagnostics.size() > diagnostics)
    out << "- … " << plan.diagnostics.size() - diagnostics << " more diagnostics in plan.json\n";
  out << "\n";
}

void write_notes(std::ostringstream& out, const Plan& plan) {
  for (const auto& note : plan.notes) out << "> " << cell(note) << "\n";
  if (!plan.notes.empty()) out << "\n";
  for (const auto& c : plan.collection_checks) {
    out << "Import-time check (CPU, 0 GPUs): `pytest --collect-only` over " << c.files.size()
        << " test files that import a module whose imports changed";
    for (std::size_t i = 0; i < c.reasons.size() && i < 3; ++i) out << (i ? "; " : ": ") << cell(c.reasons[i]);
    if (c.reasons.size() > 3) out << "; and " << c.reasons.size() - 3 << " more";
    out << ".\n\n";
  }
  if (plan.audit_fraction > 0) {
    out << "Audit of the skips: " << plural(plan.audit.size(), "skipped test", "skipped tests") << " ("
        << fixed(100 * plan.audit_fraction, 1) << "% sample) also run, after everything else and never "
           "blocking; a failure among them is an escape, a test fastci skipped that fails on this change";
    for (std::size_t i = 0; i < plan.audit.size() && i < 3; ++i) out << (i ? ", " : ": ") << code(plan.audit[i].test.id);
    if (plan.audit.size() > 3) out << " and " << plan.audit.size() - 3 << " more in plan.json";
    out << ".\n\n";
  }
}

void write_changes(std::ostringstream& out, const Plan& plan, const Limits& limits) {
  const auto& symbols = plan.changes.symbols;
  out << "## Changed symbols (" << symbols.size() << ")\n\n";
  if (symbols.empty()) out << "None.\n";
  std::size_t shown = std::min(symbols.size(), limits.symbols);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& s = symbols[i];
    out << "- " << to_string(s.change) << " " << frontend::to_string(s.kind) << " " << code(s.qualified_name) << " ("
        << cell(s.file) << ":" << s.first_line << "-" << s.last_line << ")";
    if (!s.renamed_from.empty()) out << " from " << code(s.renamed_from);
    out << "\n";
  }
  more_line(out, shown, symbols.size());
  const auto& files = plan.changes.files;
  out << "\n### Files (" << files.size() << ")\n\n| file | status | kind | +/- | note |\n|---|---|---|---|---|\n";
  std::size_t listed = std::min(files.size(), limits.files);
  for (std::size_t i = 0; i < listed; ++i) {
    const auto& f = files[i];
    out << "| " << code(f.path) << " | " << to_string(f.status) << " | " << to_string(f.kind) << " | +"
        << f.lines_added << "/-" << f.lines_removed << " | " << cell(f.note) << " |\n";
  }
  if (files.size() > listed) out << "| … " << files.size() - listed << " more in plan.json | | | | |\n";
  out << "\n";
}

/// Tests of one file in the plan: how many, what they cost, and why they were selected.
struct FileGroup {
  std::size_t tests = 0, shrunk = 0;
  double gpu_seconds = 0;
  std::map<std::string, std::size_t> kinds;  ///< first reason's kind -> tests
};

std::string kinds_text(const std::map<std::string, std::size_t>& kinds) {
  std::string out;
  for (const auto& [kind, n] : kinds) out += (out.empty() ? "" : ", ") + kind + " " + std::to_string(n);
  return out;
}

void write_selected(std::ostringstream& out, const Plan& plan, const Limits& limits) {
  const auto& ordered = plan.prioritized.ordered;
  out << "## Tests to run (" << ordered.size() << ")\n\n";
  if (ordered.empty()) {
    out << "None.\n\n";
    return;
  }
  // Files in the order their riskiest test runs.
  std::vector<std::string> order;
  std::map<std::string, FileGroup> groups;
  for (const auto& e : ordered) {
    auto [it, fresh] = groups.try_emplace(e.selected.test.file);
    if (fresh) order.push_back(e.selected.test.file);
    auto& g = it->second;
    ++g.tests;
    g.shrunk += e.overrides.empty() ? 0 : 1;
    g.gpu_seconds += e.predicted_seconds * e.gpus;
    if (!e.selected.reasons.empty()) ++g.kinds[to_string(e.selected.reasons.front().kind)];
  }
  out << "| file | tests | GPU-min | selected by |\n|---|---:|---:|---|\n";
  std::size_t shown = std::min(order.size(), limits.test_files);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& g = groups[order[i]];
    out << "| " << code(order[i]) << " | " << g.tests << (g.shrunk ? " (" + std::to_string(g.shrunk) + " shrunk)" : "")
        << " | " << fixed(g.gpu_seconds / 60, 1) << " | " << kinds_text(g.kinds) << " |\n";
  }
  if (order.size() > shown) {
    std::size_t rest = 0;
    for (std::size_t i = shown; i < order.size(); ++i) rest += groups[order[i]].tests;
    out << "| … " << order.size() - shown << " more files | " << rest << " | | in plan.json |\n";
  }
  out << "\n";
  std::size_t witnesses = std::min(ordered.size(), limits.witnesses);
  if (witnesses > 0) {
    out << "### Highest risk first: why (" << witnesses << " of " << ordered.size() << ")\n\n";
    for (std::size_t i = 0; i < witnesses; ++i) {
      const auto& e = ordered[i];
      out << "- " << code(e.selected.test.id) << " — risk " << fixed(e.risk, 2) << ", " << e.gpus << " GPU"
          << (e.gpus == 1 ? "" : "s") << ", " << (e.duration_known ? "" : "~") << static_cast<int>(e.predicted_seconds)
          << " s\n";
      if (e.selected.reasons.empty()) continue;
      const auto& r = e.selected.reasons.front();
      out << "  - " << to_string(r.kind) << ": " << cell(r.text) << "\n";
      if (r.witness.empty()) continue;
      out << "  <details><summary>witness path</summary>\n\n";
      for (std::size_t k = 0; k < r.witness.size(); ++k)
        out << "    " << code(r.witness[k].display)
            << (k + 1 < r.witness.size() ? std::string(" —") + frontend::to_string(r.witness[k].kind_to_next) + "→" : "")
            << "\n";
      out << "\n  </details>\n";
    }
    out << "\n";
  }
  std::vector<const PlanEntry*> lane;
  for (const auto& e : ordered)
    if (e.failure_class.kind != FailureClass::none) lane.push_back(&e);
  if (!lane.empty()) {
    // Their failures are not this change's: they run last and do not count as its risk.
    out << "### Known-failing or flaky, run last (" << lane.size() << ")\n\n";
    std::size_t listed = std::min(lane.size(), limits.shrunk);
    for (std::size_t i = 0; i < listed; ++i)
      out << "- " << code(lane[i]->selected.test.id) << ": " << to_string(lane[i]->failure_class.kind) << " — "
          << cell(lane[i]->failure_class.evidence) << "\n";
    more_line(out, listed, lane.size());
    out << "\n";
  }
  std::vector<const PlanEntry*> shrunk;
  for (const auto& e : ordered)
    if (!e.overrides.empty()) shrunk.push_back(&e);
  if (!shrunk.empty()) {
    out << "### Shrunk (" << shrunk.size() << ")\n\n";
    std::size_t listed = std::min(shrunk.size(), limits.shrunk);
    for (std::size_t i = 0; i < listed; ++i) {
      out << "- " << code(shrunk[i]->selected.test.id) << ":";
      for (const auto& [k, v] : shrunk[i]->overrides) out << " " << code(k + "=" + v);
      if (!shrunk[i]->shrink_reason.empty()) out << " — " << cell(shrunk[i]->shrink_reason);
      out << "\n";
    }
    more_line(out, listed, shrunk.size());
    out << "\n";
  }
}

/// "file: n" lines for tests left out, most tests first.
template <typename T, typename File>
void write_by_file(std::ostringstream& out, const std::vector<T>& items, File file_of, std::size_t limit) {
  std::map<std::string, std::size_t> counts;
  for (const auto& item : items) ++counts[file_of(item)];
  std::vector<std::pair<std::string, std::size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::size_t shown = std::min(sorted.size(), limit);
  for (std::size_t i = 0; i < shown; ++i) out << "- " << code(sorted[i].first) << ": " << sorted[i].second << "\n";
  if (sorted.size() > shown) {
    std::size_t rest = 0;
    for (std::size_t i = shown; i < sorted.size(); ++i) rest += sorted[i].second;
    out << "- … " << sorted.size() - shown << " more files (" << rest << " tests) in plan.json\n";
  }
  out << "\n";
}

void write_left_out(std::ostringstream& out, const Plan& plan, const Limits& limits) {
  const auto& p = plan.prioritized;
  if (!p.pruned.empty()) {
    out << "## Pruned as redundant (" << p.pruned.size() << ")\n\n"
        << "Each runs the changed code only in contexts that a kept test already exercises.\n\n";
    write_by_file(out, p.pruned, [](const PrunedEntry& e) { return e.test.file; }, limits.pruned_files);
  }
  if (!p.quarantined.empty()) {
    out << "## Quarantined: known-failing or flaky, not run (" << p.quarantined.size() << ")\n\n";
    std::size_t shown = std::min(p.quarantined.size(), limits.over_budget);
    for (std::size_t i = 0; i < shown; ++i)
      out << "- " << code(p.quarantined[i].test.id) << ": " << cell(p.quarantined[i].reason) << "\n";
    more_line(out, shown, p.quarantined.size());
    out << "\n";
  }
  if (!p.over_budget.empty()) {
    out << "## Left out by the time budget (" << p.over_budget.size() << ")\n\n";
    std::size_t shown = std::min(p.over_budget.size(), limits.over_budget);
    for (std::size_t i = 0; i < shown; ++i) out << "- " << code(p.over_budget[i].test.id) << "\n";
    more_line(out, shown, p.over_budget.size());
    out << "\n";
  }
  const auto& skipped = plan.selection.skipped;
  out << "## Skipped tests (" << skipped.size() << ")\n\n";
  if (skipped.empty()) return;
  out << "Each has no call-graph path to a changed symbol and no rule selects it; by file:\n\n";
  write_by_file(out, skipped, [](const SkippedTest& t) { return t.test.file; }, limits.skipped_files);
}

std::string render(const Plan& plan, const Limits& limits) {
  std::ostringstream out;
  write_headline(out, plan);
  write_widenings(out, plan, limits);
  write_notes(out, plan);
  write_changes(out, plan, limits);
  write_selected(out, plan, limits);
  write_left_out(out, plan, limits);
  out << "Every test, reason and witness path is in plan.json (`fastci explain TEST_ID` tells one test's story).\n";
  return out.str();
}

}  // namespace

std::string render_markdown_report(const Plan& plan, std::size_t max_chars) {
  Limits limits;
  std::string text = render(plan, limits);
  while (text.size() > max_chars && !limits.exhausted()) {
    limits = limits.halved();
    text = render(plan, limits);
  }
  if (text.size() <= max_chars) return text;
  // Only a headline longer than a comment gets here (thousands of changed files' notes): cut at a
  // line and say so rather than have the comment rejected.
  const std::string cut = "\n… report cut to fit a comment; plan.json has everything.\n";
  std::size_t end = text.rfind('\n', max_chars > cut.size() ? max_chars - cut.size() : 0);
  return text.substr(0, end == std::string::npos ? 0 : end) + cut;
}

}  // namespace fastci::planner
