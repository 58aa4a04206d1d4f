#include "planner/workload/data_file.h"

#include "util/file.h"

namespace fastci::planner::workload {

util::Result<toml::table> parse_toml(const std::string& text, const std::string& origin) {
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& error) {
    return util::Error{std::string(error.description()), origin, static_cast<int>(error.source().begin.line)};
  }
}

util::Result<toml::table> load_toml(const std::string& path) {
  util::Result<std::string> text = util::read_file(path);
  if (!text) return text.error();
  return parse_toml(*text, path);
}

std::vector<std::string> toml_strings(const toml::table& table, const char* key) {
  std::vector<std::string> out;
  if (const toml::array* array = table[key].as_array())
    for (const auto& element : *array)
      if (auto text = element.value<std::string>()) out.push_back(*text);
  return out;
}

int toml_line(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

}  // namespace fastci::planner::workload
