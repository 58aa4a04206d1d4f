#include "planner/specificity.h"

#include <cmath>
#include <map>
#include <set>
#include <string>

namespace fastci::planner {
namespace {

std::set<std::string> symbols_reached(const SelectedTest& s) {
  std::set<std::string> out;
  for (const auto& r : s.reasons) out.insert(r.changed_symbol);
  return out;
}

}  // namespace

std::vector<double> specificities(const std::vector<SelectedTest>& selected) {
  std::vector<std::set<std::string>> reached;
  std::map<std::string, int> tests_reaching;
  for (const auto& s : selected) {
    reached.push_back(symbols_reached(s));
    for (const auto& symbol : reached.back()) ++tests_reaching[symbol];
  }
  std::vector<double> out(selected.size(), 0.0);
  if (tests_reaching.empty()) return out;
  const double symbols = static_cast<double>(tests_reaching.size());
  const double mean_share = 1.0 / static_cast<double>(selected.size());
  for (std::size_t i = 0; i < selected.size(); ++i) {
    double share = 0;
    for (const auto& symbol : reached[i]) share += 1.0 / (symbols * tests_reaching[symbol]);
    // A test with no reason at all (none is selected that way today) counts as an average one.
    out[i] = share > 0 ? std::log(share / mean_share) : 0.0;
  }
  return out;
}

}  // namespace fastci::planner
