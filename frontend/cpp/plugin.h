#pragma once
/// The C++/CUDA frontend as a plugin: a shared object the indexer loads the first time it parses a
/// translation unit. Linking Clang and LLVM into every binary mapped about 75 MB of their code at
/// start (their relocations and static constructors touch it) into analyses that parse no C++ at
/// all: a warm run whose units are cached, a Python-only repository.

#include <string>
#include <vector>

#include "frontend/cpp/cpp_frontend.h"

namespace fastci::frontend::cpp {

/// What the plugin hands the indexer. The indexer and the plugin come from one build: the version
/// only catches a plugin left over from another.
struct FrontendPlugin {
  int version = 0;
  std::vector<TranslationUnitFacts> (*parse_translation_units)(const std::vector<std::string>& repo_relative_sources,
                                                               const CppParseOptions& options,
                                                               const ProgressCallback& progress) = nullptr;
};

/// The version this build's indexer and plugin agree on (bump when FrontendPlugin or the types it
/// passes change).
inline constexpr int kFrontendPluginVersion = 1;

/// The name of the function the plugin exports (extern "C", returning const FrontendPlugin*).
inline constexpr const char* kFrontendPluginEntry = "fastci_cpp_frontend_plugin";

}  // namespace fastci::frontend::cpp
