#pragma once
/// Where a Python `def` or `class` header ends. Python 3.11+ reports the lines of a multi-line
/// signature (its default values) as executed when the module is imported, so the lines that say a
/// function ran are those after its header, not merely after its first line.

#include <string_view>

namespace fastci::planner {

/// The line holding the ':' that ends the definition header starting at `first_line` (1-based) of
/// `source`: the first ':' outside brackets, strings and comments. `first_line` when it cannot
/// tell (a line past the end, no header).
int python_header_end(std::string_view source, int first_line);

}  // namespace fastci::planner
