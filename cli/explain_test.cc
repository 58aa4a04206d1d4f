#include <gtest/gtest.h>

#include "cli/explain.h"

namespace fastci::cli {
namespace {

nlohmann::json sample_plan() {
  return nlohmann::json::parse(R"json({
    "schema": "fastci-plan/1", "base": "1111111111111111", "head": "2222222222222222",
    "changes": {"symbols": [{"change": "changed", "name": "pkg.mod.f", "file": "pkg/mod.py", "first_line": 3}]},
    "tests": [{"id": "tests/test_a.py::test_x[1]", "reasons": [{"kind": "static-path", "text": "reaches changed pkg.mod.f",
               "witness": [{"symbol": "test:tests/test_a.py::test_x[1]", "display": "tests/test_a.py::test_x[1]", "edge": "call"},
                           {"symbol": "py:pkg.mod.f", "display": "pkg.mod.f (pkg/mod.py:3)"}]}]}],
    "pruned": [],
    "skipped": [{"id": "tests/test_b.py::test_y", "reason": "no changed symbol is reachable from it"}]
  })json");
}

TEST(Explain, SelectedShowsReasonAndWitnessPath) {
  auto text = explain_test(sample_plan(), "tests/test_a.py::test_x[1]");
  EXPECT_NE(text.find("SELECTED for 111111111111..222222222222"), std::string::npos);
  EXPECT_NE(text.find("static-path: reaches changed pkg.mod.f"), std::string::npos);
  EXPECT_NE(text.find("pkg.mod.f (pkg/mod.py:3)"), std::string::npos);
  EXPECT_NE(text.find("--call-->"), std::string::npos);
}

TEST(Explain, SkippedListsTheChangesItDoesNotReach) {
  auto text = explain_test(sample_plan(), "tests/test_b.py::test_y");
  EXPECT_NE(text.find("SKIPPED"), std::string::npos);
  EXPECT_NE(text.find("changed pkg.mod.f (pkg/mod.py:3)"), std::string::npos);
}

TEST(Explain, AnAuditedSkipSaysItRunsAnyway) {
  auto plan = sample_plan();
  EXPECT_EQ(explain_test(plan, "tests/test_b.py::test_y").find("audit"), std::string::npos);
  plan["audit"] = nlohmann::json::array({{{"id", "tests/test_b.py::test_y"}, {"kind", "audit"}}});
  auto text = explain_test(plan, "tests/test_b.py::test_y");
  EXPECT_NE(text.find("SKIPPED"), std::string::npos);
  EXPECT_NE(text.find("run anyway as an audit of this skip"), std::string::npos) << text;
}

TEST(Explain, UnknownTestGivesNothingAndSuggestions) {
  EXPECT_TRUE(explain_test(sample_plan(), "tests/test_c.py::nope").empty());
  auto similar = similar_test_ids(sample_plan(), "test_x");
  ASSERT_EQ(similar.size(), 1u);
  EXPECT_EQ(similar[0], "tests/test_a.py::test_x[1]");
}

}  // namespace
}  // namespace fastci::cli
