#pragma once
/// Per-file, pure extraction of Python facts with tree-sitter-python (cacheable by content hash).

#include <string_view>

#include "frontend/python/module_record.h"

namespace fastci::frontend::python {

/// Parses one file. `path` is repository-relative and '/'-separated; it names the module.
/// Never fails: a file that does not parse keeps what is safe, with parsed=false and diagnostics.
ModuleRecord parse_module(std::string_view path, std::string_view source);

}  // namespace fastci::frontend::python
