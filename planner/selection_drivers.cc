#include "planner/selection_drivers.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace fastci::planner {

namespace {

using DriverKey = std::tuple<SelectionReason::Kind, std::string, std::string>;

/// Adds the largest causes among tests selected by resolved paths, at most `limit`: the changed
/// symbol the most of them reach, then the one the most of the rest reach, and so on (a greedy
/// cover). Their first reasons name only the nearest changed symbol, which in a class whose
/// `__post_init__` every construction runs is whichever field a test happens to read first.
void add_path_covers(const Selection& selection, const std::vector<const SelectedTest*>& tests, std::size_t limit,
                     std::map<DriverKey, std::size_t>& counts) {
  std::vector<char> covered(tests.size(), 0);
  std::vector<std::size_t> n(selection.path_symbols.size());
  for (std::size_t round = 0; round < limit; ++round) {
    std::fill(n.begin(), n.end(), 0);
    for (std::size_t i = 0; i < tests.size(); ++i)
      if (!covered[i])
        for (auto s : tests[i]->reaches) ++n[s];
    auto best = std::max_element(n.begin(), n.end());  // the first of equals: the change set's order
    if (best == n.end() || *best == 0) return;
    const auto chosen = static_cast<std::uint32_t>(best - n.begin());
    for (std::size_t i = 0; i < tests.size(); ++i)
      if (!covered[i] && std::binary_search(tests[i]->reaches.begin(), tests[i]->reaches.end(), chosen))
        covered[i] = 1;
    counts[{SelectionReason::Kind::static_path, selection.path_symbols[chosen], ""}] += *best;
  }
}

}  // namespace

std::vector<SelectionDriver> selection_drivers(const Selection& selection, std::size_t limit) {
  std::map<DriverKey, std::size_t> counts;
  std::vector<const SelectedTest*> by_path;
  for (const auto& s : selection.selected) {
    if (s.reasons.empty()) continue;
    const auto& r = s.reasons.front();
    if (r.kind == SelectionReason::Kind::static_path && !s.reaches.empty()) {
      by_path.push_back(&s);
      continue;
    }
    std::string through = r.kind == SelectionReason::Kind::name_match ? name_match_step(r.witness) : std::string();
    ++counts[{r.kind, r.changed_symbol, std::move(through)}];
  }
  add_path_covers(selection, by_path, limit, counts);
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

std::string describe_drivers(const Selection& selection, std::size_t limit) {
  const auto& selected = selection.selected;
  auto drivers = selection_drivers(selection, limit);
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
