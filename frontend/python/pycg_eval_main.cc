/// Prints the call graph of a folder of Python files in PyCG's JSON format, for comparison with
/// PyCG's micro-benchmark: {"caller": ["callee", ...]} with module-relative names, "<builtin>.f"
/// for builtins and the imported dotted name for code outside the folder.
/// Usage: fastci-pycg-eval DIR

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "frontend/python/builtins.h"
#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "util/file.h"

namespace {

namespace fs = std::filesystem;
namespace py = fastci::frontend::python;
using fastci::frontend::EdgeKind;
using fastci::frontend::SymbolKind;

std::string head_of(const std::string& dotted) {
  std::size_t end = dotted.find_first_of(".([");
  return dotted.substr(0, end);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  fs::path root = argv[1];
  std::vector<py::ModuleRecord> records;
  std::error_code error;
  std::vector<fs::path> paths;
  for (fs::recursive_directory_iterator it(root, error), end; !error && it != end; it.increment(error))
    if (it->is_regular_file() && it->path().extension() == ".py") paths.push_back(it->path());
  if (error) {
    std::fprintf(stderr, "%s: %s\n", root.c_str(), error.message().c_str());
    return 1;
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    auto source = fastci::util::read_file(path);
    if (!source) {
      std::fprintf(stderr, "%s\n", source.error().to_string().c_str());
      return 1;
    }
    records.push_back(py::parse_module(fs::relative(path, root).generic_string(), *source));
  }
  auto facts = py::link_modules(std::move(records));

  // Names outside the folder that the code imports: their placeholders are external calls.
  std::set<std::string> repository_roots, external_roots;
  std::unordered_map<std::string, SymbolKind> kinds;
  for (const auto& file : facts.files)
    for (const auto& symbol : file.symbols) {
      kinds[symbol.id] = symbol.kind;
      repository_roots.insert(head_of(symbol.qualified_name));
    }
  for (const auto& file : facts.files)
    for (const auto& module : file.imported_modules)
      if (!repository_roots.count(head_of(module))) external_roots.insert(head_of(module));

  // Class bodies run in the scope that defines the class: PyCG attributes their calls there.
  std::unordered_map<std::string, std::string> enclosing;
  for (const auto& file : facts.files)
    for (const auto& edge : file.edges)
      if (edge.kind == EdgeKind::contains) enclosing[edge.to] = edge.from;
  auto name_of = [&](std::string id) -> std::string {
    if (id.rfind("py:", 0) == 0) {
      for (int hops = 0; hops < 16; ++hops) {
        auto kind = kinds.find(id);
        auto parent = enclosing.find(id);
        if (kind == kinds.end() || kind->second != SymbolKind::class_ || parent == enclosing.end()) break;
        id = parent->second;
      }
      return id.substr(3);
    }
    std::string text = id.substr(1);
    if (py::is_builtin(text)) return "<builtin>." + text;
    if (!external_roots.count(head_of(text))) return "";
    if (text.find_first_of("([") == std::string::npos) return text;
    // "ext.Cls().fun", a method on an instance of an imported class: PyCG names it "ext.Cls.fun".
    std::size_t call = text.find_first_of("([");
    if (text.compare(call, 3, "().") == 0 && text.find_first_of(".([", call + 3) == std::string::npos)
      return text.substr(0, call) + text.substr(call + 2);
    return "";
  };

  std::map<std::string, std::set<std::string>> graph;
  for (const auto& file : facts.files)
    for (const auto& symbol : file.symbols)
      if (symbol.kind != SymbolKind::class_ && symbol.kind != SymbolKind::variable) graph[symbol.qualified_name];
  for (const auto& file : facts.files) {
    // Constructor calls: PyCG names __init__ only; the class itself when it has no __init__ is
    // not an edge.
    std::set<std::pair<std::string, int>> constructor_sites;
    for (const auto& edge : file.edges)
      if (edge.kind == EdgeKind::call && edge.to.size() > 9 && edge.to.compare(edge.to.size() - 9, 9, ".__init__") == 0)
        constructor_sites.insert({edge.from, edge.line});
    for (const auto& edge : file.edges) {
      if (edge.kind != EdgeKind::call && edge.kind != EdgeKind::virtual_call) continue;
      auto kind = kinds.find(edge.to);
      if (kind != kinds.end() && kind->second == SymbolKind::class_) continue;
      std::string from = name_of(edge.from), to = name_of(edge.to);
      if (from.empty() || to.empty()) continue;
      graph[from].insert(to);
      graph[to];
    }
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [caller, callees] : graph) out[caller] = std::vector<std::string>(callees.begin(), callees.end());
  std::printf("%s\n", out.dump(4, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  return 0;
}
