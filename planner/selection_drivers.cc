#include "planner/selection_drivers.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace fastci::planner {

std::vector<SelectionDriver> selection_drivers(const std::vector<SelectedTest>& selected, std::size_t limit) {
  std::map<std::tuple<SelectionReason::Kind, std::string, std::string>, std::size_t> counts;
  for (const auto& s : selected) {
    if (s.reasons.empty()) continue;
    const auto& r = s.reasons.front();
    std::string through = r.kind == SelectionReason::Kind::name_match ? name_match_step(r.witness) : std::string();
    ++counts[{r.kind, r.changed_symbol, std::move(through)}];
  }
  std::vector<SelectionDriver> out;
  for (auto& [key, n] : counts) out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), n});
  // Most tests first; the map's order (kind, symbol, site) breaks ties the same way every run.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.tests > b.tests; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

namespace {

/// "py:a.b.C.f" -> "a.b.C.f"; other ids as they are.
std::string shown(const std::string& symbol) { return symbol.starts_with("py:") ? symbol.substr(3) : symbol; }

}  // namespace

std::string describe(const SelectionDriver& d) {
  std::string n = std::to_string(d.tests);
  switch (d.kind) {
    case SelectionReason::Kind::name_match:
      return n + " through " + d.through + ", which may reach " + shown(d.changed_symbol) + " (a name match)";
    case SelectionReason::Kind::static_path: return n + " through call paths to " + shown(d.changed_symbol);
    case SelectionReason::Kind::evidence: return n + " whose recorded runs executed " + shown(d.changed_symbol);
    case SelectionReason::Kind::rule:
      return n + " by a rule" + (d.changed_symbol.empty() ? std::string() : " on " + shown(d.changed_symbol));
    case SelectionReason::Kind::own_file: return n + " whose own file changed";
    case SelectionReason::Kind::always_run: return n + " always run";
    case SelectionReason::Kind::widening: return n + " by a widening";
  }
  return n;
}

std::string describe_drivers(const std::vector<SelectedTest>& selected, std::size_t limit) {
  auto drivers = selection_drivers(selected, limit);
  std::string out;
  std::size_t counted = 0;
  for (const auto& d : drivers) {
    if (!out.empty()) out += "; ";
    out += describe(d);
    counted += d.tests;
  }
  std::size_t with_reasons = static_cast<std::size_t>(
      std::count_if(selected.begin(), selected.end(), [](const SelectedTest& s) { return !s.reasons.empty(); }));
  if (with_reasons > counted) out += "; " + std::to_string(with_reasons - counted) + " for other reasons";
  return out;
}

}  // namespace fastci::planner
