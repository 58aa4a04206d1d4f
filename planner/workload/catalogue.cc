#include "planner/workload/catalogue.h"

#include <algorithm>
#include <cctype>
#include "planner/workload/data_file.h"
#include "util/file.h"

namespace fastci::planner::workload {
namespace {

std::optional<KnobRole> parse_role(const std::string& text) {
  static const std::pair<const char*, KnobRole> kRoles[] = {
      {"size", KnobRole::size},           {"parallel", KnobRole::parallel},
      {"batch", KnobRole::batch},         {"iterations", KnobRole::iterations},
      {"interval", KnobRole::interval},   {"threshold", KnobRole::threshold},
      {"layout", KnobRole::layout},       {"flag", KnobRole::flag}};
  for (const auto& [name, role] : kRoles)
    if (text == name) return role;
  return std::nullopt;
}

util::Error entry_error(const std::string& origin, const toml::table& entry, const std::string& message) {
  return util::Error{message, origin, toml_line(entry)};
}

}  // namespace

std::string normalise_knob_name(const std::string& raw_name) {
  std::string out;
  size_t start = raw_name.find_first_not_of('-');
  if (start == std::string::npos) return out;
  for (size_t i = start; i < raw_name.size(); ++i) {
    char c = raw_name[i];
    out.push_back(c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

const char* to_string(KnobRole role) {
  switch (role) {
    case KnobRole::size: return "size";
    case KnobRole::parallel: return "parallel";
    case KnobRole::batch: return "batch";
    case KnobRole::iterations: return "iterations";
    case KnobRole::interval: return "interval";
    case KnobRole::threshold: return "threshold";
    case KnobRole::layout: return "layout";
    case KnobRole::flag: return "flag";
  }
  return "size";
}

util::Result<Catalogue> Catalogue::load(const std::string& path) {
  util::Result<std::string> text = util::read_file(path);
  if (!text) return text.error();
  return parse(*text, path);
}

util::Result<Catalogue> Catalogue::parse(const std::string& text, const std::string& path) {
  util::Result<toml::table> parsed = parse_toml(text, path);
  if (!parsed) return parsed.error();
  Catalogue catalogue;
  const toml::array* entries = (*parsed)["knob"].as_array();
  if (!entries) return util::Error{"expected [[knob]] entries", path, 0};
  for (const auto& node : *entries) {
    const toml::table* entry = node.as_table();
    if (!entry) return util::Error{"[[knob]] must be a table", path, 0};
    KnobSpec spec;
    auto name = (*entry)["name"].value<std::string>();
    auto role = (*entry)["role"].value<std::string>();
    if (!name || name->empty()) return entry_error(path, *entry, "knob without a name");
    if (!role || !parse_role(*role))
      return entry_error(path, *entry, "knob '" + *name + "': role must be one of size, parallel, batch, "
                                       "iterations, interval, threshold, layout, flag");
    spec.name = *name;
    spec.role = *parse_role(*role);
    spec.description = (*entry)["description"].value_or(std::string());
    for (const std::string& alias : toml_strings(*entry, "aliases"))
      spec.aliases.push_back(normalise_knob_name(alias));
    spec.aliases.push_back(normalise_knob_name(spec.name));
    spec.scope_patterns = toml_strings(*entry, "scope_patterns");
    for (const std::string& pattern : spec.scope_patterns) {
      try {
        spec.scope_regexes.emplace_back(pattern, std::regex::ECMAScript | std::regex::icase);
      } catch (const std::regex_error& error) {
        return entry_error(path, *entry, "knob '" + spec.name + "': bad scope pattern '" + pattern +
                                             "': " + error.what());
      }
    }
    if (auto value = (*entry)["default"].value<long long>()) spec.default_value = *value;
    if (auto value = (*entry)["minimum"].value<long long>()) spec.minimum = *value;
    if (catalogue.find(spec.name)) return entry_error(path, *entry, "knob '" + spec.name + "' defined twice");
    catalogue.knobs_.push_back(std::move(spec));
  }
  return catalogue;
}

std::optional<std::string> Catalogue::canonical(const std::string& raw_name) const {
  const std::string normal = normalise_knob_name(raw_name);
  for (const KnobSpec& spec : knobs_)
    if (std::find(spec.aliases.begin(), spec.aliases.end(), normal) != spec.aliases.end()) return spec.name;
  size_t dot = normal.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  const std::string last = normal.substr(dot + 1);
  for (const KnobSpec& spec : knobs_)
    if (std::find(spec.aliases.begin(), spec.aliases.end(), last) != spec.aliases.end()) return spec.name;
  return std::nullopt;
}

const KnobSpec* Catalogue::find(const std::string& name) const {
  for (const KnobSpec& spec : knobs_)
    if (spec.name == name) return &spec;
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> Catalogue::named_in(const std::string& test_id) const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const KnobSpec& spec : knobs_) {
    for (size_t i = 0; i < spec.scope_regexes.size(); ++i) {
      std::smatch match;
      if (std::regex_search(test_id, match, spec.scope_regexes[i])) {
        out.emplace_back(spec.name, match.str(0));
        break;
      }
    }
  }
  return out;
}

}  // namespace fastci::planner::workload
