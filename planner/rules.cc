#include "planner/rules.h"

#include <toml++/toml.h>

namespace fastci::planner {

Config default_config() {
  Config c;
  c.select_all = {"setup.py",       "setup.cfg",          "pyproject.toml", "requirements*.txt",
                  "**/requirements*.txt", "tox.ini",     "pytest.ini",     "noxfile.py",
                  "fastci.toml",    "**/CMakeLists.txt",  "CMakeLists.txt", "Makefile",
                  "MANIFEST.in",    ".github/workflows/**", ".gitlab-ci.yml", "Dockerfile*",
                  "**/Dockerfile*", "environment*.yml", "uv.lock", "**/uv.lock", "poetry.lock",
                  "Pipfile", "Pipfile.lock", "**/constraints*.txt", "constraints*.txt"};
  c.ignore = {"*.md",  "**/*.md",  "*.rst", "**/*.rst", "docs/**", "LICENSE*", "**/LICENSE*",
              "NOTICE*", "AUTHORS*", "CODEOWNERS", ".github/CODEOWNERS", ".gitignore",
              "**/.gitignore", "**/*.png", "**/*.jpg", "**/*.jpeg", "**/*.gif", "**/*.svg",
              "*.png", "*.svg", ".pre-commit-config.yaml", ".github/ISSUE_TEMPLATE/**",
              ".github/PULL_REQUEST_TEMPLATE*"};
  c.source = "defaults";
  return c;
}

namespace {

bool match_here(std::string_view p, std::string_view s) {
  while (!p.empty()) {
    if (p.starts_with("**")) {
      p.remove_prefix(2);
      bool slash = p.starts_with("/");
      if (slash) p.remove_prefix(1);
      // "**/" matches zero or more whole folders; a bare "**" matches anything.
      for (std::size_t i = 0; i <= s.size(); ++i) {
        if ((i == 0 || s[i - 1] == '/' || !slash) && match_here(p, s.substr(i))) return true;
      }
      return false;
    }
    if (p.front() == '*') {
      p.remove_prefix(1);
      for (std::size_t i = 0; i <= s.size(); ++i) {
        if (match_here(p, s.substr(i))) return true;
        if (i < s.size() && s[i] == '/') return false;
      }
      return false;
    }
    if (s.empty()) return false;
    if (p.front() == '?' ? s.front() == '/' : p.front() != s.front()) return false;
    p.remove_prefix(1);
    s.remove_prefix(1);
  }
  return s.empty();
}

util::Error config_error(std::string_view file, const toml::source_region& where, std::string what) {
  return util::Error{std::move(what), std::string(file), static_cast<int>(where.begin.line)};
}

util::Result<std::vector<std::string>> strings(const toml::node& node, std::string_view file,
                                               std::string_view key) {
  const auto* array = node.as_array();
  if (!array) return config_error(file, node.source(), std::string(key) + ": expected an array of strings");
  std::vector<std::string> out;
  for (const auto& item : *array) {
    auto text = item.value<std::string>();
    if (!text) return config_error(file, item.source(), std::string(key) + ": expected a string");
    out.push_back(*text);
  }
  return out;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) { return match_here(pattern, path); }

bool any_match(const std::vector<std::string>& patterns, std::string_view path) {
  for (const auto& p : patterns)
    if (glob_match(p, path)) return true;
  return false;
}

util::Result<Config> parse_config(std::string_view toml_text, std::string_view file_name) {
  Config config = default_config();
  toml::table root;
  try {
    root = toml::parse(toml_text, file_name);
  } catch (const toml::parse_error& e) {
    return config_error(file_name, e.source(), std::string("invalid TOML: ") + std::string(e.description()));
  }
  const toml::table* section = &root;
  if (file_name.ends_with("pyproject.toml")) {
    section = root["tool"]["fastci"].as_table();
    if (!section) return config;  // no [tool.fastci]: defaults
  }
  config.source = std::string(file_name);
  for (const auto& [key, node] : *section) {
    std::string_view k = key.str();
    auto assign = [&](std::vector<std::string>& target, bool extend) -> util::Status {
      auto values = strings(node, file_name, k);
      if (!values.ok()) return values.error();
      if (!extend) target.clear();
      target.insert(target.end(), values->begin(), values->end());
      return {};
    };
    util::Status status;
    if (k == "select_all") status = assign(config.select_all, false);
    else if (k == "extend_select_all") status = assign(config.select_all, true);
    else if (k == "ignore") status = assign(config.ignore, false);
    else if (k == "extend_ignore") status = assign(config.ignore, true);
    else if (k == "always_run") status = assign(config.always_run, false);
    else if (k == "test_paths") status = assign(config.test_paths, false);
    else if (k == "store") {
      auto value = node.value<std::string>();
      if (!value) return config_error(file_name, node.source(), "store: expected a string URL");
      config.store = *value;
    } else if (k == "quarantine") {
      auto value = node.value<bool>();
      if (!value) return config_error(file_name, node.source(), "quarantine: expected true or false");
      config.quarantine = *value;
    } else if (k == "unknown_files") {
      auto value = node.value<std::string>();
      if (!value || (*value != "widen" && *value != "ignore"))
        return config_error(file_name, node.source(), "unknown_files: expected \"widen\" or \"ignore\"");
      config.unknown = *value == "widen" ? UnknownFilePolicy::widen : UnknownFilePolicy::ignore;
    } else if (k == "rules") {
      const auto* array = node.as_array();
      if (!array) return config_error(file_name, node.source(), "rules: expected an array of tables");
      for (const auto& item : *array) {
        const auto* table = item.as_table();
        if (!table) return config_error(file_name, item.source(), "rules: expected a table");
        PathRule rule;
        rule.name = (*table)["name"].value_or(std::string("rule ") + std::to_string(config.rules.size() + 1));
        if (const auto* paths = table->get("paths")) {
          auto v = strings(*paths, file_name, "rules.paths");
          if (!v.ok()) return v.error();
          rule.paths = *v;
        }
        if (const auto* tests = table->get("tests")) {
          auto v = strings(*tests, file_name, "rules.tests");
          if (!v.ok()) return v.error();
          rule.tests = *v;
        }
        if (rule.paths.empty() || rule.tests.empty())
          return config_error(file_name, item.source(), "rules: each rule needs non-empty paths and tests");
        config.rules.push_back(std::move(rule));
      }
    } else {
      return config_error(file_name, node.source(),
                          "unknown key '" + std::string(k) +
                              "' (expected select_all, extend_select_all, ignore, extend_ignore, "
                              "always_run, test_paths, rules, unknown_files, store, quarantine)");
    }
    if (!status) return status.error();
  }
  return config;
}

}  // namespace fastci::planner
