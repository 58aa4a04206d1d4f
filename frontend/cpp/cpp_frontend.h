#pragma once
/// The C++/CUDA frontend: parses translation units with Clang and extracts the fact model
/// (functions, kernels, calls, launch sites, pybind11 and TORCH_LIBRARY bindings).

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "frontend/facts.h"

namespace fastci::frontend::cpp {

/// How to find and parse a repository's C++/CUDA sources.
struct CppParseOptions {
  std::filesystem::path repository;                       ///< repository root
  std::optional<std::filesystem::path> compile_commands;  ///< default: <repo>/compile_commands.json or <repo>/build/compile_commands.json when present
  std::optional<std::filesystem::path> cuda_path;         ///< default: /usr/local/cuda when it exists
  unsigned threads = 2;                                   ///< translation units parsed at once
  bool use_stub_headers = true;                           ///< serve torch/pybind11 stand-ins ahead of system headers
  std::vector<std::string> extra_arguments;               ///< appended to every command line
  bool precompiled_preamble = true;                       ///< parse the standard headers once per language options (preamble.h)
  std::optional<std::filesystem::path> preamble_directory;  ///< keep preambles there across calls; default: a temporary folder per call
};

/// A repository header a translation unit read, for cache invalidation.
struct HeaderDependency {
  std::string path;          ///< repository-relative
  std::string content_hash;  ///< util::content_hash of the bytes Clang read
};

/// The facts of one translation unit, plus what the caller needs to cache and report them.
struct TranslationUnitFacts {
  /// path/content_hash of the source file; symbols include definitions in repository headers
  /// (merge by Symbol::id); imported_modules lists the repository headers read.
  FileFacts facts;
  std::vector<HeaderDependency> headers;  ///< same headers as facts.imported_modules, with hashes
  int error_count = 0;                    ///< Clang errors, missing includes included
  bool crashed = false;                   ///< Clang crashed; facts hold only the diagnostic
  double seconds = 0;                     ///< wall time spent on this unit
  std::vector<std::string> command_line;  ///< the Clang command line, without the preamble it was given
  bool used_preamble = false;             ///< parsed with a precompiled preamble (preamble.h)
};

/// Reports progress: units finished, units in total, the unit just finished.
using ProgressCallback =
    std::function<void(std::size_t done, std::size_t total, const std::string& path)>;

/// Parses each repository-relative source as one isolated translation unit, `threads` at once.
/// A crash or fatal error in one unit becomes a diagnostic of that unit; the run continues.
/// Results are in the order of `repo_relative_sources`.
std::vector<TranslationUnitFacts> parse_translation_units(
    const std::vector<std::string>& repo_relative_sources, const CppParseOptions& options,
    const ProgressCallback& progress = {});

/// The Clang command line (argv[0] first, source last) the frontend uses for one source; the stub
/// headers appear under the virtual directory named by `stub_directory()`.
std::vector<std::string> command_line_for(const std::string& repo_relative_source,
                                          const CppParseOptions& options);

/// The virtual include directory the stub headers are served from.
std::string stub_directory();

}  // namespace fastci::frontend::cpp
