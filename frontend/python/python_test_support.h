#pragma once
/// Test helpers: parse a folder of real files into records with repository-relative paths.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/facts.h"
#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "util/file.h"

namespace fastci::frontend::python::testing {

/// Every .py file below `folder`, named relative to `root`, parsed; sorted by path.
inline std::vector<ModuleRecord> parse_folder(const std::filesystem::path& root, const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (entry.is_directory() && entry.path().filename() == ".git") continue;
    if (entry.is_regular_file() && entry.path().extension() == ".py") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<ModuleRecord> records;
  for (const auto& path : paths) {
    auto source = util::read_file(path);
    if (!source) continue;
    records.push_back(parse_module(std::filesystem::relative(path, root).generic_string(), *source));
  }
  return records;
}

/// Three module-level functions f, g and h: what container and subscript tests store and call.
inline constexpr const char* kThreeFunctions =
    "def f(): pass\n"
    "def g(): pass\n"
    "def h(): pass\n";

/// The source tree's root, where fixtures live.
inline std::filesystem::path source_root() { return FASTCI_SOURCE_DIR; }

/// Edges of all files with the given source symbol.
inline std::vector<Edge> edges_from(const RepositoryFacts& facts, const std::string& from) {
  std::vector<Edge> out;
  for (const auto& file : facts.files)
    for (const auto& edge : file.edges)
      if (edge.from == from) out.push_back(edge);
  return out;
}

/// One module "m.py" of that source, parsed and linked on its own.
inline RepositoryFacts link_one(const std::string& source) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("m.py", source));
  return link_modules(std::move(modules));
}

/// Whether there is an edge from -> to of that kind.
inline bool has_edge(const RepositoryFacts& facts, const std::string& from, const std::string& to, EdgeKind kind) {
  for (const auto& file : facts.files)
    for (const auto& edge : file.edges)
      if (edge.from == from && edge.to == to && edge.kind == kind) return true;
  return false;
}

/// All tests of all files.
inline std::vector<Test> all_tests(const RepositoryFacts& facts) {
  std::vector<Test> out;
  for (const auto& file : facts.files) out.insert(out.end(), file.tests.begin(), file.tests.end());
  return out;
}

}  // namespace fastci::frontend::python::testing
