#include "planner/audit.h"

#include <gtest/gtest.h>

namespace fastci::planner {
namespace {

Selection skipping(int n) {
  Selection s;
  for (int i = 0; i < n; ++i) {
    frontend::Test t;
    t.id = "tests/test_m.py::test_" + std::to_string(i);
    s.skipped.push_back({t, "no changed symbol is reachable from it and no rule selects it"});
  }
  return s;
}

TEST(Audit, ReadsPercentagesAndFractions) {
  EXPECT_DOUBLE_EQ(*parse_audit_fraction("2%"), 0.02);
  EXPECT_DOUBLE_EQ(*parse_audit_fraction("0.02"), 0.02);
  EXPECT_DOUBLE_EQ(*parse_audit_fraction("0"), 0.0);
  EXPECT_DOUBLE_EQ(*parse_audit_fraction("100%"), 1.0);
  for (const char* bad : {"", "%", "two", "2 %", "-1%", "150%", "1.5", "nan", "0x1"}) {
    auto parsed = parse_audit_fraction(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
  }
  EXPECT_NE(parse_audit_fraction("two").error().message.find("such as 2% or 0.02"), std::string::npos);
}

TEST(Audit, SamplesAboutTheShareAskedForTheSameWayEveryTime) {
  auto selection = skipping(20000);
  auto first = sample_audit(selection, "c0ffee", 0.05);
  EXPECT_GT(first.size(), 800u);  // 1,000 expected; the hash is uniform
  EXPECT_LT(first.size(), 1200u);
  auto again = sample_audit(selection, "c0ffee", 0.05);
  ASSERT_EQ(again.size(), first.size());
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(again[i].test.id, first[i].test.id);
  // Another commit audits other tests.
  auto other = sample_audit(selection, "decaf", 0.05);
  std::size_t shared = 0;
  for (const auto& a : first)
    for (const auto& b : other) shared += a.test.id == b.test.id;
  EXPECT_LT(shared, first.size() / 5);
  EXPECT_EQ(first[0].skipped_because, "no changed symbol is reachable from it and no rule selects it");
}

TEST(Audit, NoneAndAllAreExact) {
  auto selection = skipping(50);
  EXPECT_TRUE(sample_audit(selection, "c0ffee", 0).empty());
  EXPECT_EQ(sample_audit(selection, "c0ffee", 1).size(), 50u);
}

}  // namespace
}  // namespace fastci::planner
