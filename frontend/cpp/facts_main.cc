/// fastci-cpp-facts: prints the C++/CUDA frontend's facts for some files as JSON, for debugging.

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <set>

#include "frontend/cpp/cpp_frontend.h"
#include "frontend/facts_json.h"

namespace {

namespace fs = std::filesystem;
using fastci::frontend::cpp::TranslationUnitFacts;

/// The path of `file` relative to the repository, or nothing when it lies outside.
std::optional<std::string> repository_relative(const fs::path& repository, const std::string& file) {
  std::error_code error;
  fs::path absolute = fs::weakly_canonical(fs::absolute(file), error);
  fs::path root = fs::weakly_canonical(fs::absolute(repository), error);
  fs::path relative = absolute.lexically_relative(root);
  if (relative.empty() || *relative.begin() == "..") return std::nullopt;
  return relative.generic_string();
}

nlohmann::json summary(const std::vector<TranslationUnitFacts>& units) {
  std::size_t clean = 0, with_errors = 0, crashed = 0, functions = 0, kernels = 0, launches = 0, bindings = 0,
              edges = 0;
  double seconds = 0;
  std::set<std::string> symbol_ids;
  for (const TranslationUnitFacts& unit : units) {
    crashed += unit.crashed;
    (unit.error_count == 0 ? clean : with_errors) += 1;
    launches += unit.facts.launches.size();
    bindings += unit.facts.bindings.size();
    edges += unit.facts.edges.size();
    seconds += unit.seconds;
    for (const auto& symbol : unit.facts.symbols) {
      if (!symbol_ids.insert(symbol.id).second) continue;
      if (symbol.kind == fastci::frontend::SymbolKind::kernel) ++kernels;
      if (symbol.kind == fastci::frontend::SymbolKind::function || symbol.kind == fastci::frontend::SymbolKind::method)
        ++functions;
    }
  }
  return {{"units", units.size()}, {"without_errors", clean}, {"with_errors", with_errors}, {"crashed", crashed},
          {"distinct_functions", functions}, {"distinct_kernels", kernels}, {"launch_sites", launches},
          {"bindings", bindings}, {"edges", edges}, {"parse_seconds_sum", seconds}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Print the C++/CUDA frontend's facts for source files as JSON"};
  std::vector<std::string> files;
  std::string repository = ".";
  std::string compile_commands;
  unsigned threads = 2;
  bool print_flags = false;
  bool summary_only = false;
  bool no_stubs = false;
  bool no_preamble = false;
  std::vector<std::string> extra_arguments;
  app.add_option("files", files, "C++/CUDA sources (.cpp, .cc, .cu, ...)")->required();
  app.add_option("--repo", repository, "repository root (paths in facts are relative to it)");
  app.add_option("--compile-commands", compile_commands, "compile_commands.json to take flags from");
  app.add_option("--threads", threads, "translation units parsed at once");
  app.add_flag("--print-flags", print_flags, "print each file's Clang command line instead of parsing");
  app.add_flag("--summary", summary_only, "print counts instead of the facts");
  app.add_flag("--no-stubs", no_stubs, "do not serve the torch/pybind11 stub headers");
  app.add_flag("--no-preamble", no_preamble, "parse the standard headers in every unit (no precompiled preamble)");
  app.add_option("--extra-arg", extra_arguments, "an argument appended to every Clang command line");
  CLI11_PARSE(app, argc, argv);

  fastci::frontend::cpp::CppParseOptions options;
  options.repository = repository;
  options.threads = threads;
  options.use_stub_headers = !no_stubs;
  options.precompiled_preamble = !no_preamble;
  options.extra_arguments = extra_arguments;
  if (!compile_commands.empty()) options.compile_commands = compile_commands;
  std::vector<std::string> sources;
  for (const std::string& file : files) {
    auto relative = repository_relative(repository, file);
    if (!relative) {
      std::cerr << file << ": not inside the repository " << repository << "\n";
      return 2;
    }
    sources.push_back(*relative);
  }
  if (print_flags) {
    for (const std::string& source : sources) {
      for (const std::string& argument : fastci::frontend::cpp::command_line_for(source, options))
        std::cout << argument << ' ';
      std::cout << '\n';
    }
    return 0;
  }
  const auto units = fastci::frontend::cpp::parse_translation_units(
      sources, options, [](std::size_t done, std::size_t total, const std::string& path) {
        std::cerr << "[" << done << "/" << total << "] " << path << "\n";
      });
  if (summary_only) {
    std::cout << summary(units).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  nlohmann::json out = nlohmann::json::array();
  for (const TranslationUnitFacts& unit : units) {
    nlohmann::json entry = fastci::frontend::to_json(unit.facts);
    nlohmann::json headers = nlohmann::json::object();
    for (const auto& header : unit.headers) headers[header.path] = header.content_hash;
    entry["headers"] = headers;
    entry["error_count"] = unit.error_count;
    entry["crashed"] = unit.crashed;
    entry["seconds"] = unit.seconds;
    out.push_back(std::move(entry));
  }
  std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return 0;
}
