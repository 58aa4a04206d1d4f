#pragma once
/// Equivalent-context pruning: keep a cheapest subset of tests that still covers every
/// (changed symbol, execution context) pair, and say which kept test stands for each pruned one.

#include <map>
#include <set>
#include <string>
#include <vector>

namespace fastci::planner {

/// One (changed symbol, context key) pair a test exercises.
using ContextPair = std::pair<std::string, std::string>;

/// A candidate for pruning: what it covers and what it costs.
struct PruneCandidate {
  std::string test_id;
  std::set<ContextPair> pairs;  ///< empty: no evidence -> never pruned
  double cost = 1;              ///< GPU-seconds
  bool protected_ = false;      ///< own file changed, failed recently, always-run, no evidence
  std::string protected_reason;
};

/// Why a test was pruned and who stands for it.
struct PrunedTest {
  std::string test_id;
  std::vector<std::string> kept_by;  ///< kept tests that together cover all of its pairs
  std::size_t pairs = 0;
};

/// The chosen subset.
struct PruneResult {
  std::vector<std::string> kept;  ///< in input order
  std::vector<PrunedTest> pruned;
  double kept_cost = 0, pruned_cost = 0;
};

/// How hard to prune.
enum class PruneMode {
  off,        ///< keep everything
  safe,       ///< prune only tests whose every pair is covered by a single kept test
  aggressive  ///< weighted set cover: pairs may be covered by several kept tests together
};

/// Greedy weighted set cover (cost per newly covered pair), protected tests kept first; then
/// redundant kept tests are dropped in decreasing cost order.
PruneResult prune_equivalent(const std::vector<PruneCandidate>& candidates, PruneMode mode);

const char* to_string(PruneMode mode);

}  // namespace fastci::planner
