#pragma once
/// Loads the C++/CUDA frontend plugin (frontend/cpp/plugin.h) on first use: the indexer maps Clang
/// and LLVM only when a translation unit is parsed.

#include "frontend/cpp/plugin.h"
#include "util/result.h"

namespace fastci::callgraph {

/// The plugin of this build, loaded once per process from lib/fastci/ or its build folder; an
/// error names the file and why it could not serve (missing, unloadable, another build's).
util::Result<const frontend::cpp::FrontendPlugin*> cpp_frontend();

}  // namespace fastci::callgraph
