#pragma once
/// Reading the module's TOML data files with errors as Result (file and line), never exceptions.

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "util/result.h"

namespace fastci::planner::workload {

/// Parses TOML text; `origin` names the file in errors.
util::Result<toml::table> parse_toml(const std::string& text, const std::string& origin);
/// Reads and parses a TOML file.
util::Result<toml::table> load_toml(const std::string& path);
/// The strings of an array-valued key (missing or non-string elements are skipped).
std::vector<std::string> toml_strings(const toml::table& table, const char* key);
/// The line a node starts on, for error messages.
int toml_line(const toml::node& node);

}  // namespace fastci::planner::workload
