#include "planner/html_report.h"

#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <sstream>

#include "callgraph/dot.h"
#include "util/format.h"

extern char** environ;

namespace fastci::planner {
namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

/// Witness paths drawn in the impact graph: beyond a few dozen, Graphviz's layout is a wall.
constexpr std::size_t kGraphPaths = 40;

std::string impact_dot(const Plan& plan) {
  std::vector<std::vector<callgraph::PathStep>> paths;
  for (const auto& e : plan.prioritized.ordered) {
    if (paths.size() >= kGraphPaths) break;
    for (const auto& r : e.selected.reasons)
      if (!r.witness.empty()) {
        paths.push_back(r.witness);
        break;  // one path per test: the first reason's
      }
  }
  std::vector<std::string> changed;
  for (const auto& s : plan.changes.symbols) changed.push_back(s.id);
  return callgraph::paths_dot(paths, changed);
}

}  // namespace

util::Result<std::string> render_svg(const std::string& dot_text) {
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0) return util::Error{"pipe failed"};
  if (pipe(from_child) != 0) {
    close(to_child[0]);
    close(to_child[1]);
    return util::Error{"pipe failed"};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
  posix_spawn_file_actions_addclose(&actions, to_child[1]);
  posix_spawn_file_actions_addclose(&actions, from_child[0]);
  char dot[] = "dot", format[] = "-Tsvg";
  char* argv[] = {dot, format, nullptr};
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, "dot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  if (spawned != 0) {
    close(to_child[1]);
    close(from_child[0]);
    return util::Error{"Graphviz 'dot' not found (apt-get install graphviz)"};
  }
  // Write and read at once so a large graph cannot deadlock on full pipes.
  std::string svg;
  std::size_t written = 0;
  bool writing = true;
  char buffer[65536];
  while (true) {
    pollfd fds[2] = {{from_child[0], POLLIN, 0}, {writing ? to_child[1] : -1, POLLOUT, 0}};
    if (poll(fds, 2, -1) < 0) break;
    if (writing && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(to_child[1], dot_text.data() + written, dot_text.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n <= 0 || written == dot_text.size()) {
        close(to_child[1]);
        writing = false;
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(from_child[0], buffer, sizeof buffer);
      if (n <= 0) break;
      svg.append(buffer, static_cast<std::size_t>(n));
    }
  }
  if (writing) close(to_child[1]);
  close(from_child[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return util::Error{"Graphviz 'dot' failed"};
  if (auto start = svg.find("<svg"); start != std::string::npos) svg.erase(0, start);
  return svg;
}

namespace {

using util::fixed;

/// Readers find their test by typing part of its id; whole file groups hide when nothing in them
/// matches, and open when something does.
constexpr const char* kSearchScript = R"(<script>
function fastciFilter(text) {
  text = text.toLowerCase();
  document.querySelectorAll('details.group').forEach(function (group) {
    var shown = 0;
    group.querySelectorAll('tr.t').forEach(function (row) {
      var hit = !text || row.dataset.id.indexOf(text) >= 0;
      row.style.display = hit ? '' : 'none';
      if (hit) shown++;
    });
    group.style.display = shown ? '' : 'none';
    if (text) group.open = shown > 0;
  });
}
</script>)";

constexpr const char* kStyle =
    "<style>body{font-family:sans-serif;margin:1.5em;max-width:90em;color:#222}"
    "table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;"
    "vertical-align:top}th{background:#f4f4f4}td.n{text-align:right;white-space:nowrap}code{font-size:90%;"
    "word-break:break-all}.cards{display:flex;gap:1em;flex-wrap:wrap;margin:1em 0}.card{border:1px solid #ccc;"
    "border-radius:6px;padding:.6em 1em;min-width:10em}.card b{display:block;font-size:1.6em}.warn{background:#fff4e0;"
    "border-left:4px solid #e69500;padding:.5em 1em}mark{background:#ffe680}details.group{margin:.2em 0}"
    "details.group>summary{cursor:pointer;padding:2px 0}.kind{color:#555;font-size:90%}"
    "#search{width:40em;max-width:100%;padding:4px;font-size:1em;margin:.5em 0}"
    ".graph{overflow:auto;border:1px solid #ddd;max-height:40em}</style>";

/// What the search box matches a row by: its id, lowercased and escaped for an attribute.
std::string search_key(std::string id) {
  for (auto& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return escape(id);
}

/// The text with every changed symbol's qualified name marked, escaped.
std::string marked(const std::string& text, const std::vector<std::string>& names) {
  std::string out = escape(text);
  for (const auto& name : names) {
    std::string e = escape(name);
    if (e.empty()) continue;
    std::string result;
    for (std::size_t at = 0;;) {
      auto hit = out.find(e, at);
      if (hit == std::string::npos) {
        result += out.substr(at);
        break;
      }
      result += out.substr(at, hit - at) + "<mark>" + e + "</mark>";
      at = hit + e.size();
    }
    out = std::move(result);
  }
  return out;
}

void write_summary(std::ostringstream& out, const Plan& plan) {
  const auto& p = plan.prioritized;
  std::size_t total = plan.tests_total();
  out << "<h1>fastci impact report</h1>\n<p><code>" << escape(plan.changes.base.substr(0, 12)) << ".."
      << escape(plan.changes.head.substr(0, 12)) << "</code>: " << plan.changes.symbols.size()
      << " changed symbols in " << plan.changes.files.size() << " files.</p>\n<div class=\"cards\">"
      << "<div class=\"card\"><b>" << p.ordered.size() << " / " << total << "</b>tests to run</div>"
      << "<div class=\"card\"><b>" << p.pruned.size() << "</b>pruned as redundant</div>"
      << "<div class=\"card\"><b>" << plan.selection.skipped.size() + p.over_budget.size() << "</b>skipped</div>";
  const auto& pr = p.prediction;
  if (pr.cluster_gpus > 0)
    out << "<div class=\"card\"><b>" << fixed(pr.plan_gpu_hours, 2) << " GPU-h</b>against " << fixed(pr.all_gpu_hours, 2)
        << " for everything</div><div class=\"card\"><b>" << fixed(pr.plan_latency_seconds / 60, 1)
        << " min</b>against " << fixed(pr.all_latency_seconds / 60, 1) << " on " << pr.cluster_gpus << " GPUs</div>";
  out << "</div>\n";
  if (auto why = plan.why_every_test(); !why.empty())
    out << "<p class=\"warn\"><b>Every test runs.</b> Because " << escape(why) << ".</p>\n";
  if (auto why = plan.why_most_tests(); !why.empty())
    out << "<p class=\"warn\"><b>Most tests run.</b> " << escape(why) << ".</p>\n";
  if (!plan.changes.widenings.empty()) {
    out << "<h2>Widened selection (" << plan.changes.widenings.size() << ")</h2>\n<ul>\n";
    for (const auto& w : plan.changes.widenings)
      out << "<li><b>" << to_string(w.scope) << "</b> <code>" << escape(w.file) << "</code>: " << escape(w.reason)
          << "</li>\n";
    out << "</ul>\n";
  }
}

void write_changed(std::ostringstream& out, const Plan& plan) {
  out << "<h2>Changed symbols (" << plan.changes.symbols.size() << ")</h2>\n<details"
      << (plan.changes.symbols.size() <= 30 ? " open" : "") << "><summary>"
      << plan.changes.symbols.size() << " symbols</summary><table><tr><th>change</th><th>kind</th><th>symbol</th>"
      << "<th>where</th></tr>\n";
  for (const auto& s : plan.changes.symbols)
    out << "<tr><td>" << to_string(s.change) << "</td><td>" << frontend::to_string(s.kind) << "</td><td><code><mark>"
        << escape(s.qualified_name) << "</mark></code></td><td>" << escape(s.file) << ":" << s.first_line << "</td></tr>\n";
  out << "</table></details>\n";
}

void write_tests(std::ostringstream& out, const Plan& plan, const std::vector<std::string>& names) {
  const auto& ordered = plan.prioritized.ordered;
  out << "<h2>Tests to run (" << ordered.size() << "), by file, riskiest file first</h2>\n"
      << "<input id=\"search\" type=\"search\" placeholder=\"filter tests by id\" oninput=\"fastciFilter(this.value)\">\n";
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<int, const PlanEntry*>>> groups;
  int rank = 0;
  for (const auto& e : ordered) {
    auto [it, fresh] = groups.try_emplace(e.selected.test.file);
    if (fresh) order.push_back(e.selected.test.file);
    it->second.push_back({++rank, &e});
  }
  for (std::size_t g = 0; g < order.size(); ++g) {
    const auto& members = groups[order[g]];
    double gpu_seconds = 0;
    for (const auto& [r, e] : members) gpu_seconds += e->predicted_seconds * e->gpus;
    out << "<details class=\"group\"" << (g == 0 || (g < 3 && ordered.size() <= 200) ? " open" : "") << "><summary><code>"
        << escape(order[g]) << "</code> — " << members.size() << " tests, " << fixed(gpu_seconds / 60, 1)
        << " GPU-min</summary>\n<table><tr><th>#</th><th>test</th><th>risk</th><th>GPUs</th><th>s</th><th>why</th></tr>\n";
    for (const auto& [r, e] : members) {
      out << "<tr class=\"t\" data-id=\"" << search_key(e->selected.test.id) << "\"><td class=\"n\">" << r << "</td><td><code>"
          << escape(e->selected.test.id) << "</code></td><td class=\"n\">" << fixed(e->risk, 2) << "</td><td class=\"n\">"
          << e->gpus << "</td><td class=\"n\">" << (e->duration_known ? "" : "~") << fixed(e->predicted_seconds, 0)
          << "</td><td>";
      if (!e->selected.reasons.empty()) {
        const auto& why = e->selected.reasons.front();
        out << "<span class=\"kind\">" << escape(to_string(why.kind)) << "</span> " << marked(why.text, names);
        if (e->selected.reasons.size() > 1) out << " <span class=\"kind\">(+" << e->selected.reasons.size() - 1 << " more)</span>";
      }
      if (!e->overrides.empty()) {
        out << "<br><span class=\"kind\">shrunk:</span>";
        for (const auto& [k, v] : e->overrides) out << " <code>" << escape(v) << "</code>";
      }
      out << "</td></tr>\n";
    }
    out << "</table></details>\n";
  }
}

void write_left_out(std::ostringstream& out, const Plan& plan) {
  const auto& p = plan.prioritized;
  if (!p.pruned.empty()) {
    out << "<h2>Pruned (" << p.pruned.size() << ")</h2>\n<details><summary>" << p.pruned.size()
        << " tests</summary><ul>\n";
    for (const auto& x : p.pruned) out << "<li><code>" << escape(x.test.id) << "</code>: " << escape(x.reason) << "</li>\n";
    out << "</ul></details>\n";
  }
  std::map<std::string, std::vector<const SkippedTest*>> by_file;
  for (const auto& s : plan.selection.skipped) by_file[s.test.file].push_back(&s);
  for (const auto& s : p.over_budget) by_file[s.test.file].push_back(&s);
  out << "<h2>Skipped (" << plan.selection.skipped.size() + p.over_budget.size() << ") in " << by_file.size()
      << " files</h2>\n";
  for (const auto& [file, tests] : by_file) {
    out << "<details class=\"group\"><summary><code>" << escape(file) << "</code> — " << tests.size()
        << "</summary><table>\n";
    for (const auto* s : tests) {
      out << "<tr class=\"t\" data-id=\"" << search_key(s->test.id) << "\"><td><code>" << escape(s->test.id) << "</code></td><td>"
          << escape(s->reason) << "</td></tr>\n";
    }
    out << "</table></details>\n";
  }
}

}  // namespace

std::string render_html_report(const Plan& plan) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fastci impact report</title>" << kStyle
      << kSearchScript << "</head><body>\n";
  write_summary(out, plan);
  std::vector<std::string> names;
  for (const auto& s : plan.changes.symbols) names.push_back(s.qualified_name);
  write_changed(out, plan);
  // A graph of every path is unreadable past a few dozen tests: the riskiest tests' paths only.
  out << "<h2>Impact graph</h2>\n<details" << (plan.prioritized.ordered.size() <= 40 ? " open" : "")
      << "><summary>witness paths of the " << std::min<std::size_t>(plan.prioritized.ordered.size(), kGraphPaths)
      << " riskiest tests</summary><div class=\"graph\">";
  std::string dot = impact_dot(plan);
  if (auto svg = render_svg(dot); svg.ok()) out << *svg;
  else out << "<p>" << escape(svg.error().message) << "</p><pre>" << escape(dot) << "</pre>";
  out << "</div></details>\n";
  write_tests(out, plan, names);
  write_left_out(out, plan);
  out << "</body></html>\n";
  return out.str();
}

}  // namespace fastci::planner
