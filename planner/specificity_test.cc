#include <gtest/gtest.h>

#include <cmath>

#include "planner/specificity.h"

namespace fastci::planner {
namespace {

SelectedTest reaching(const std::string& id, std::vector<std::string> symbols) {
  SelectedTest s;
  s.test.id = id;
  for (auto& symbol : symbols) s.reasons.push_back({SelectionReason::Kind::static_path, "path", symbol, {}});
  return s;
}

TEST(Specificity, ATestReachingWhatFewOthersReachStandsOut) {
  // Shaped like DeepSpeed b22706a72: a native all-reduce only the comm test reaches, and the
  // accelerator's op-builder lookup that every distributed test reaches.
  std::vector<SelectedTest> tests = {reaching("comm", {"all_reduce", "get_op_builder"}),
                                     reaching("a", {"get_op_builder"}), reaching("b", {"get_op_builder"}),
                                     reaching("c", {"get_op_builder"})};
  auto s = specificities(tests);
  // Shares: comm 1/2 (all_reduce) + 1/8 (a quarter of get_op_builder's half); the others 1/8.
  EXPECT_NEAR(s[0], std::log((0.5 + 0.125) / 0.25), 1e-12);
  EXPECT_NEAR(s[1], std::log(0.125 / 0.25), 1e-12);
  EXPECT_EQ(s[1], s[2]);
  EXPECT_GT(s[0], 0);
  EXPECT_LT(s[1], 0);
}

TEST(Specificity, TestsReachingTheSameSymbolsAreAllAverage) {
  std::vector<SelectedTest> tests = {reaching("a", {"f", "g"}), reaching("b", {"f", "g"}), reaching("c", {"g", "f"})};
  for (double v : specificities(tests)) EXPECT_NEAR(v, 0.0, 1e-12);
}

TEST(Specificity, ReasonsOfOneKindAndSymbolCountOnce) {
  auto twice = reaching("a", {"f", "f"});
  std::vector<SelectedTest> tests = {twice, reaching("b", {"f"})};
  auto s = specificities(tests);
  EXPECT_NEAR(s[0], 0.0, 1e-12);
  EXPECT_NEAR(s[1], 0.0, 1e-12);
}

TEST(Specificity, WideningsWithoutASymbolAreOneSymbol) {
  // Two tests selected by a widening (no changed symbol) and one that reaches `f`: each group
  // holds half of the change.
  SelectedTest widened;
  widened.test.id = "w1";
  widened.reasons.push_back({SelectionReason::Kind::widening, "cannot map", "", {}});
  auto w2 = widened;
  w2.test.id = "w2";
  auto s = specificities({widened, w2, reaching("t", {"f"})});
  EXPECT_NEAR(s[0], std::log(0.25 / (1.0 / 3)), 1e-12);
  EXPECT_NEAR(s[2], std::log(0.5 / (1.0 / 3)), 1e-12);
  EXPECT_TRUE(specificities({}).empty());
}

}  // namespace
}  // namespace fastci::planner
