#include "evidence/records.h"

#include <algorithm>
#include <array>

#include "util/hash.h"

namespace fastci::evidence {

namespace {

constexpr std::array<std::pair<Outcome, const char*>, 7> kOutcomeNames = {{
    {Outcome::passed, "passed"},
    {Outcome::failed, "failed"},
    {Outcome::error, "error"},
    {Outcome::skipped, "skipped"},
    {Outcome::xfailed, "xfailed"},
    {Outcome::xpassed, "xpassed"},
    {Outcome::unknown, "unknown"},
}};

}  // namespace

const char* to_string(Outcome outcome) {
  for (const auto& [value, name] : kOutcomeNames) {
    if (value == outcome) return name;
  }
  return "unknown";
}

std::optional<Outcome> outcome_from_string(std::string_view text) {
  for (const auto& [value, name] : kOutcomeNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

std::string ExecutionContext::key() const {
  // Arcs are a set: the order a collector saw them in must not split equivalent contexts.
  std::vector<Arc> sorted_arcs = arcs;
  std::sort(sorted_arcs.begin(), sorted_arcs.end());
  sorted_arcs.erase(std::unique(sorted_arcs.begin(), sorted_arcs.end()), sorted_arcs.end());
  std::string canonical;
  for (const std::string& caller : callers) {
    canonical += caller;
    canonical += '\x1f';
  }
  canonical += '\x1e';
  canonical += arguments;
  canonical += '\x1e';
  for (const Arc& arc : sorted_arcs) {
    canonical += std::to_string(arc.first) + ">" + std::to_string(arc.second) + ",";
  }
  return util::content_hash(canonical);
}

}  // namespace fastci::evidence
