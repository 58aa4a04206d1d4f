#pragma once
/// C++/CUDA sources of a tree through the Clang frontend: translation units parsed in isolation
/// (cached by the content of the unit and of every repository header it read), then split into
/// one FileFacts per source or header path.

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "callgraph/index_cache.h"
#include "frontend/facts.h"

namespace fastci::callgraph {

struct SourceFile;

/// Whether a path is C, C++ or CUDA code (a unit or a header).
bool is_native_source(const std::string& path);
/// Whether a path is compiled on its own (.c/.cc/.cpp/.cxx/.cu), not only included.
bool is_translation_unit(const std::string& path);

/// What the native pass learned about a tree.
struct NativeIndex {
  std::vector<frontend::FileFacts> files;                 ///< one per unit or header with facts
  std::map<std::string, std::set<std::string>> includers; ///< header -> units that read it
  std::size_t units = 0, parsed = 0, units_with_errors = 0, crashed = 0;
  std::vector<frontend::Diagnostic> diagnostics;          ///< one line per unit with errors
};

/// Knobs of the native pass.
struct NativeIndexOptions {
  unsigned threads = 2;
  bool show_progress = true;
  std::filesystem::path scratch_dir;  ///< where sources are written for Clang on a cache miss
  std::optional<std::set<std::string>> only_units;  ///< parse just these units (base side of a diff)
};

/// Whether fastci was built with the Clang frontend.
bool native_frontend_available();

/// Parses (or reads from the cache) every translation unit of `files`.
NativeIndex index_native(const std::vector<SourceFile>& files, IndexCache& cache, const NativeIndexOptions& options);

}  // namespace fastci::callgraph
