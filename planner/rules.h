#pragma once
/// Repository configuration (`[tool.fastci]` in pyproject.toml, or fastci.toml) and the rules
/// that decide what a change to a non-code file selects.

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace fastci::planner {

/// A path rule: a change to a file matching `paths` selects the tests matching `tests`.
struct PathRule {
  std::string name;
  std::vector<std::string> paths;  ///< globs over repository paths ("**" crosses folders)
  std::vector<std::string> tests;  ///< globs over test ids
};

/// What to do with a changed file of a kind no rule names.
enum class UnknownFilePolicy { widen, ignore };

/// The effective configuration: built-in defaults overridden by the repository's.
struct Config {
  std::vector<std::string> select_all;  ///< a change here selects every test
  std::vector<std::string> ignore;      ///< a change here selects nothing (docs, images)
  std::vector<std::string> always_run;  ///< test id globs always selected
  std::vector<std::string> test_paths;  ///< where tests live; empty means anywhere
  std::vector<PathRule> rules;
  UnknownFilePolicy unknown = UnknownFilePolicy::widen;
  std::string store;                    ///< evidence store URL; empty means the default
  /// Known-failing and flaky tests (failure_class.h) are left out of the plan instead of running last.
  bool quarantine = false;
  std::string source;                   ///< "pyproject.toml", "fastci.toml" or "defaults"
};

/// The defaults alone.
Config default_config();

/// Parses TOML text of pyproject.toml (reads [tool.fastci]) or fastci.toml (top level).
/// Fails with file, line and what was expected.
util::Result<Config> parse_config(std::string_view toml_text, std::string_view file_name);

/// Glob match over '/'-separated paths: '*' and '?' stay within a folder, '**' crosses folders.
bool glob_match(std::string_view pattern, std::string_view path);

/// Whether any pattern matches.
bool any_match(const std::vector<std::string>& patterns, std::string_view path);

}  // namespace fastci::planner
