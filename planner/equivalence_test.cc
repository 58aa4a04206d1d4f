#include <gtest/gtest.h>

#include "planner/equivalence.h"

namespace fastci::planner {
namespace {

PruneCandidate candidate(const std::string& id, std::set<ContextPair> pairs, double cost) {
  return {id, std::move(pairs), cost, false, {}};
}

const ContextPair kFp32{"py:ops.softmax", "x:tensor[fp32]"};
const ContextPair kBf16{"py:ops.softmax", "x:tensor[bf16]"};
const ContextPair kSpOn{"py:tp.scatter", "sp:True"};

TEST(Prune, EquivalentContextsKeepTheCheapestTest) {
  std::vector<PruneCandidate> c = {candidate("big", {kFp32}, 100), candidate("small", {kFp32}, 10)};
  auto r = prune_equivalent(c, PruneMode::aggressive);
  EXPECT_EQ(r.kept, std::vector<std::string>{"small"});
  ASSERT_EQ(r.pruned.size(), 1u);
  EXPECT_EQ(r.pruned[0].test_id, "big");
  EXPECT_EQ(r.pruned[0].kept_by, std::vector<std::string>{"small"});
  EXPECT_DOUBLE_EQ(r.pruned_cost, 100);
}

TEST(Prune, DistinctContextsAreAllKept) {
  std::vector<PruneCandidate> c = {candidate("fp32", {kFp32}, 10), candidate("bf16", {kBf16}, 10)};
  EXPECT_EQ(prune_equivalent(c, PruneMode::aggressive).kept.size(), 2u);
}

TEST(Prune, AggressiveCoversWithSeveralSafeNeedsOne) {
  std::vector<PruneCandidate> c = {candidate("a", {kFp32}, 5), candidate("b", {kBf16}, 5),
                                   candidate("both", {kFp32, kBf16}, 50)};
  auto aggressive = prune_equivalent(c, PruneMode::aggressive);
  EXPECT_EQ(aggressive.kept, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(aggressive.pruned[0].kept_by, (std::vector<std::string>{"a", "b"}));
  auto safe = prune_equivalent(c, PruneMode::safe);
  EXPECT_EQ(safe.kept.size(), 3u);  // no single kept test covers "both"
}

TEST(Prune, ProtectedAndEvidenceFreeTestsAreNeverPruned) {
  auto guarded = candidate("guarded", {kFp32}, 100);
  guarded.protected_ = true;
  std::vector<PruneCandidate> c = {guarded, candidate("cheap", {kFp32}, 1), candidate("unknown", {}, 1000)};
  auto r = prune_equivalent(c, PruneMode::aggressive);
  EXPECT_EQ(r.kept, (std::vector<std::string>{"guarded", "unknown"}));
  EXPECT_EQ(r.pruned[0].test_id, "cheap");
  EXPECT_EQ(prune_equivalent(c, PruneMode::off).kept.size(), 3u);
}

TEST(Prune, EveryPairStaysCovered) {
  std::vector<PruneCandidate> c;
  for (int i = 0; i < 40; ++i) {
    std::set<ContextPair> pairs;
    for (int k = 0; k < 4; ++k) pairs.insert({"s" + std::to_string((i * 7 + k) % 13), "c" + std::to_string(k % 3)});
    c.push_back(candidate("t" + std::to_string(i), pairs, 1 + (i * 31) % 17));
  }
  for (auto mode : {PruneMode::safe, PruneMode::aggressive}) {
    auto r = prune_equivalent(c, mode);
    std::set<ContextPair> all, kept;
    std::set<std::string> kept_ids(r.kept.begin(), r.kept.end());
    for (const auto& x : c) {
      all.insert(x.pairs.begin(), x.pairs.end());
      if (kept_ids.count(x.test_id)) kept.insert(x.pairs.begin(), x.pairs.end());
    }
    EXPECT_EQ(all, kept) << to_string(mode);
    EXPECT_LT(r.kept.size(), c.size()) << to_string(mode);
  }
}

}  // namespace
}  // namespace fastci::planner
