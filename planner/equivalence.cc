#include "planner/equivalence.h"

#include <algorithm>
#include <limits>

namespace fastci::planner {

const char* to_string(PruneMode mode) {
  switch (mode) {
    case PruneMode::off: return "off";
    case PruneMode::safe: return "safe";
    case PruneMode::aggressive: return "aggressive";
  }
  return "unknown";
}

namespace {

bool covers_all(const std::set<ContextPair>& big, const std::set<ContextPair>& small) {
  return std::includes(big.begin(), big.end(), small.begin(), small.end());
}

/// Greedy cover over unprotected candidates; protected ones are already chosen.
std::vector<bool> greedy_cover(const std::vector<PruneCandidate>& c, std::vector<bool> chosen) {
  std::set<ContextPair> covered;
  std::set<ContextPair> needed;
  for (std::size_t i = 0; i < c.size(); ++i) {
    needed.insert(c[i].pairs.begin(), c[i].pairs.end());
    if (chosen[i]) covered.insert(c[i].pairs.begin(), c[i].pairs.end());
  }
  while (covered.size() < needed.size()) {
    double best_ratio = std::numeric_limits<double>::infinity();
    std::size_t best = c.size();
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (chosen[i]) continue;
      std::size_t fresh = 0;
      for (const auto& p : c[i].pairs) fresh += !covered.count(p);
      if (fresh == 0) continue;
      double ratio = std::max(c[i].cost, 1e-9) / static_cast<double>(fresh);
      if (ratio < best_ratio) best_ratio = ratio, best = i;
    }
    if (best == c.size()) break;
    chosen[best] = true;
    covered.insert(c[best].pairs.begin(), c[best].pairs.end());
  }
  // Drop chosen tests that others now make redundant, most expensive first.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (chosen[i] && !c[i].protected_ && !c[i].pairs.empty()) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return c[a].cost > c[b].cost; });
  for (std::size_t i : order) {
    std::set<ContextPair> others;
    for (std::size_t j = 0; j < c.size(); ++j)
      if (chosen[j] && j != i) others.insert(c[j].pairs.begin(), c[j].pairs.end());
    if (covers_all(others, c[i].pairs)) chosen[i] = false;
  }
  return chosen;
}

/// Safe mode: a test is pruned only when one kept test covers every pair it has.
std::vector<bool> single_cover(const std::vector<PruneCandidate>& c, std::vector<bool> chosen) {
  std::vector<std::size_t> order(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) order[i] = i;
  // Cheap tests with many pairs are the best stand-ins: consider them first.
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
    return c[a].cost / (c[a].pairs.size() + 1.0) < c[b].cost / (c[b].pairs.size() + 1.0);
  });
  for (std::size_t i : order) {
    if (chosen[i]) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < c.size() && !dominated; ++j)
      dominated = j != i && chosen[j] && covers_all(c[j].pairs, c[i].pairs);
    if (!dominated) chosen[i] = true;
  }
  return chosen;
}

}  // namespace

PruneResult prune_equivalent(const std::vector<PruneCandidate>& c, PruneMode mode) {
  std::vector<bool> chosen(c.size(), false);
  for (std::size_t i = 0; i < c.size(); ++i)
    chosen[i] = mode == PruneMode::off || c[i].protected_ || c[i].pairs.empty();
  if (mode == PruneMode::aggressive) chosen = greedy_cover(c, chosen);
  if (mode == PruneMode::safe) chosen = single_cover(c, chosen);

  PruneResult result;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (chosen[i]) {
      result.kept.push_back(c[i].test_id);
      result.kept_cost += c[i].cost;
      continue;
    }
    PrunedTest pruned{c[i].test_id, {}, c[i].pairs.size()};
    // Name the fewest kept tests that cover its pairs: greedily by overlap.
    std::set<ContextPair> left = c[i].pairs;
    while (!left.empty()) {
      std::size_t best = c.size(), best_overlap = 0;
      for (std::size_t j = 0; j < c.size(); ++j) {
        if (!chosen[j]) continue;
        std::size_t overlap = 0;
        for (const auto& p : left) overlap += c[j].pairs.count(p);
        if (overlap > best_overlap) best_overlap = overlap, best = j;
      }
      if (best == c.size()) break;
      pruned.kept_by.push_back(c[best].test_id);
      for (const auto& p : c[best].pairs) left.erase(p);
    }
    result.pruned_cost += c[i].cost;
    result.pruned.push_back(std::move(pruned));
  }
  return result;
}

}  // namespace fastci::planner
