#include "planner/html_report.h"

#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

#include "callgraph/dot.h"

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

std::string impact_dot(const Plan& plan) {
  std::vector<std::vector<callgraph::PathStep>> paths;
  for (const auto& e : plan.prioritized.ordered)
    for (const auto& r : e.selected.reasons)
      if (!r.witness.empty() && paths.size() < 200) paths.push_back(r.witness);
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

std::string render_html_report(const Plan& plan) {
  std::ostringstream out;
  const auto& p = plan.prioritized;
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fastci impact report</title>"
         "<style>body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}"
         "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}code{font-size:90%}"
         ".graph{overflow:auto;border:1px solid #ddd}</style></head><body>\n";
  out << "<h1>fastci impact report</h1>\n<p><code>" << escape(plan.changes.base.substr(0, 12)) << ".."
      << escape(plan.changes.head.substr(0, 12)) << "</code>: " << plan.changes.symbols.size()
      << " changed symbols; <b>" << p.ordered.size() << "</b> tests to run, " << p.pruned.size() << " pruned, "
      << plan.selection.skipped.size() + p.over_budget.size() << " skipped.</p>\n";
  out << "<p>Predicted on " << p.prediction.cluster_gpus << " GPUs: " << p.prediction.plan_latency_seconds / 60
      << " min and " << p.prediction.plan_gpu_hours << " GPU-hours, against " << p.prediction.all_latency_seconds / 60
      << " min and " << p.prediction.all_gpu_hours << " GPU-hours for everything.</p>\n";
  out << "<h2>Impact graph</h2>\n<div class=\"graph\">";
  std::string dot = impact_dot(plan);
  if (auto svg = render_svg(dot); svg.ok()) out << *svg;
  else out << "<p>" << escape(svg.error().message) << "</p><pre>" << escape(dot) << "</pre>";
  out << "</div>\n<h2>Changed symbols</h2>\n<table><tr><th>change</th><th>kind</th><th>symbol</th><th>where</th></tr>\n";
  for (const auto& s : plan.changes.symbols)
    out << "<tr><td>" << to_string(s.change) << "</td><td>" << frontend::to_string(s.kind) << "</td><td><code>"
        << escape(s.qualified_name) << "</code></td><td>" << escape(s.file) << ":" << s.first_line << "</td></tr>\n";
  out << "</table>\n";
  if (!plan.changes.widenings.empty()) {
    out << "<h2>Widened selection</h2>\n<ul>\n";
    for (const auto& w : plan.changes.widenings)
      out << "<li><b>" << to_string(w.scope) << "</b> <code>" << escape(w.file) << "</code>: " << escape(w.reason)
          << "</li>\n";
    out << "</ul>\n";
  }
  out << "<h2>Tests to run</h2>\n<table><tr><th>#</th><th>test</th><th>risk</th><th>GPUs</th><th>seconds</th>"
         "<th>why</th></tr>\n";
  int n = 0;
  for (const auto& e : p.ordered) {
    out << "<tr><td>" << ++n << "</td><td><code>" << escape(e.selected.test.id) << "</code></td><td>" << e.risk
        << "</td><td>" << e.gpus << "</td><td>" << e.predicted_seconds << "</td><td>";
    for (const auto& r : e.selected.reasons) out << escape(to_string(r.kind)) << ": " << escape(r.text) << "<br>";
    out << "</td></tr>\n";
  }
  out << "</table>\n";
  if (!p.pruned.empty()) {
    out << "<h2>Pruned</h2>\n<ul>\n";
    for (const auto& x : p.pruned) out << "<li><code>" << escape(x.test.id) << "</code>: " << escape(x.reason) << "</li>\n";
    out << "</ul>\n";
  }
  out << "<h2>Skipped (" << plan.selection.skipped.size() + p.over_budget.size() << ")</h2>\n<ul>\n";
  for (const auto& s : plan.selection.skipped)
    out << "<li><code>" << escape(s.test.id) << "</code>: " << escape(s.reason) << "</li>\n";
  for (const auto& s : p.over_budget)
    out << "<li><code>" << escape(s.test.id) << "</code>: " << escape(s.reason) << "</li>\n";
  out << "</ul>\n</body></html>\n";
  return out.str();
}

}  // namespace fastci::planner
