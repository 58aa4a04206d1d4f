#include "planner/workload/scope.h"

#include <algorithm>
#include <cctype>

namespace fastci::planner::workload {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// Raw name -> value of every knob (catalogue or not): siblings must agree on all of them.
std::map<std::string, std::string> all_values(const TestWorkload& test) {
  std::map<std::string, std::string> out;
  for (const Knob& knob : test.knobs) out.emplace(knob.raw_name.empty() ? knob.name : knob.raw_name, knob.value);
  return out;
}

}  // namespace

std::map<std::string, std::string> detect_scope(const TestWorkload& test, const Catalogue& catalogue) {
  std::map<std::string, std::string> out;
  for (const std::string& knob : test.declared_scope) out.emplace(knob, "in scope: declared for the test");
  for (const std::string& knob : test.asserted_scope)
    out.emplace(knob, "in scope: its assertions depend on it");
  for (const std::string& knob : test.varied_scope)
    out.emplace(knob, "in scope: varied across the test's family");
  // Only the last path part names the config (the model folder is shared by the whole family).
  std::string name = test.id;
  if (size_t slash = name.find_last_of('/'); slash != std::string::npos && name.find("::") == std::string::npos)
    name = name.substr(slash + 1);
  for (const auto& [knob, match] : catalogue.named_in(lower(name)))
    out.emplace(knob, "in scope: named in the test id (" + match + ")");
  return out;
}

std::map<std::string, std::set<std::string>> varied_knobs(const std::vector<TestWorkload>& family,
                                                          const Catalogue& catalogue) {
  std::map<std::string, std::set<std::string>> out;
  std::vector<std::map<std::string, std::string>> values;
  for (const TestWorkload& test : family) values.push_back(all_values(test));
  for (size_t a = 0; a < family.size(); ++a) {
    for (size_t b = a + 1; b < family.size(); ++b) {
      std::set<std::string> differing;
      std::set<std::string> keys;
      for (const auto& [key, value] : values[a]) keys.insert(key);
      for (const auto& [key, value] : values[b]) keys.insert(key);
      for (const std::string& key : keys) {
        auto left = values[a].find(key), right = values[b].find(key);
        if (left != values[a].end() && right != values[b].end() && left->second == right->second) continue;
        differing.insert(key);
        if (differing.size() > 1) break;
      }
      if (differing.size() != 1) continue;
      auto canonical = catalogue.canonical(*differing.begin());
      if (!canonical) continue;
      out[family[a].id].insert(*canonical);
      out[family[b].id].insert(*canonical);
    }
  }
  return out;
}

}  // namespace fastci::planner::workload
