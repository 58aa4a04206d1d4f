/// Timing of the Python frontend on a source tree: parse (1 and N threads) and link; also digests
/// of the records and of the linked facts, so that a change meant to be only faster can be shown
/// to write the same records and edges on a real tree.
/// Usage: fastci-python-perftest DIR [THREADS] [--edges FILE] [--reversed]
///   --edges FILE: every linked edge, one sorted line each (file, from, to, line, kind), to compare builds;
///   --reversed: link the modules' references in reverse order (the edges must not change).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "frontend/python/link_modules.h"
#include "frontend/python/module_record.h"
#include "frontend/python/parse_module.h"
#include "util/file.h"
#include "util/hash.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  namespace py = fastci::frontend::python;
  std::vector<std::string> positional;
  std::string edges_out;
  auto order = py::LinkOrder::as_given;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--edges" && i + 1 < argc) edges_out = argv[++i];
    else if (arg == "--reversed") order = py::LinkOrder::reversed;
    else positional.push_back(arg);
  }
  if (positional.empty()) {
    std::fprintf(stderr, "usage: %s DIR [THREADS] [--edges FILE] [--reversed]\n", argv[0]);
    return 2;
  }
  fs::path root = positional[0];
  int threads = positional.size() > 1 ? std::max(1, std::atoi(positional[1].c_str())) : 2;
  std::vector<std::pair<std::string, std::string>> files;
  std::size_t bytes = 0;
  std::error_code error;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error), end;
       it != end; it.increment(error)) {
    if (error) break;
    if (it->is_directory() && it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().extension() != ".py") continue;
    auto content = fastci::util::read_file(it->path());
    if (!content) continue;
    bytes += content->size();
    files.emplace_back(fs::relative(it->path(), root).generic_string(), std::move(*content));
  }
  std::sort(files.begin(), files.end());

  auto start = Clock::now();
  std::vector<py::ModuleRecord> records;
  records.reserve(files.size());
  for (const auto& [path, source] : files) records.push_back(py::parse_module(path, source));
  double parse_one = seconds_since(start);

  start = Clock::now();
  std::vector<py::ModuleRecord> parallel(files.size());
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (std::size_t i = t; i < files.size(); i += threads)
        parallel[i] = py::parse_module(files[i].first, files[i].second);
    });
  for (auto& w : workers) w.join();
  double parse_many = seconds_since(start);

  // What indexing adds beside the link: the names literals are read for (callgraph/index.cc).
  start = Clock::now();
  auto reads = py::constant_reads(records);
  double constants = seconds_since(start);

  std::string serialized;
  for (const auto& r : records) serialized += fastci::util::content_hash(py::serialize(r));
  const std::string records_digest = fastci::util::content_hash(serialized);

  start = Clock::now();
  py::Resolver::OrderIndependenceStats order_stats;
  auto facts = py::link_modules(std::move(records), {}, true, order, &order_stats);
  double link = seconds_since(start);

  std::size_t symbols = 0, edges = 0, placeholders = 0, tests = 0, unparsed = 0;
  for (const auto& f : facts.files) {
    symbols += f.symbols.size();
    edges += f.edges.size();
    tests += f.tests.size();
    unparsed += f.parsed ? 0 : 1;
    for (const auto& e : f.edges) placeholders += !e.to.empty() && e.to[0] == '?';
  }
  if (!edges_out.empty()) {
    std::vector<std::string> lines;
    for (const auto& f : facts.files)
      for (const auto& e : f.edges)
        lines.push_back(f.path + " " + e.from + " " + e.to + " " + std::to_string(e.line) + " " + fastci::frontend::to_string(e.kind));
    std::sort(lines.begin(), lines.end());
    std::ofstream out(edges_out);
    for (const auto& line : lines) out << line << '\n';
  }
  std::string linked_digest = fastci::util::content_hash(py::serialize(py::LinkedTree{std::move(facts), {}, reads}));
  std::printf("files %zu (%.1f MB), not parsed %zu\n", files.size(), bytes / 1e6, unparsed);
  std::printf("symbols %zu, edges %zu (placeholders %zu), tests %zu\n", symbols, edges, placeholders, tests);
  std::printf("parse 1 thread %.3f s, parse %d threads %.3f s, link %.3f s, total (%d threads) %.3f s\n",
              parse_one, threads, parse_many, link, threads, parse_many + link);
  std::printf("questions asked again from the top %zu, left cut %zu, index rounds %d\n", order_stats.asked_from_the_top,
              order_stats.unsettled, order_stats.index_rounds);
  std::printf("constant reads %.3f s (%zu names, call arguments %s)\n", constants, reads.names.size(),
              reads.call_arguments ? "read" : "not read");
  std::printf("digests: records %s, linked %s\n", records_digest.c_str(), linked_digest.c_str());
  return 0;
}
