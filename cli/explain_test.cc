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

TEST(Explain, SelectedSaysWhereItRunsAndWhy) {
  auto plan = sample_plan();
  plan["tests"].push_back({{"id", "tests/test_c.py::test_z"}, {"reasons", nlohmann::json::array()},
                           {"risk", {{"score", 0.25}, {"per_gpu_second", 0.5},
                                     {"features", {{"proximity", 0.5}, {"contexts", 0}, {"specificity", -0.7}}}}}});
  auto text = explain_test(plan, "tests/test_c.py::test_z");
  EXPECT_NE(text.find("runs 2 of 2; risk 0.25, 0.5 per GPU-second"), std::string::npos) << text;
  EXPECT_NE(text.find("features: proximity 0.5, specificity -0.7"), std::string::npos) << text;
  EXPECT_EQ(text.find("contexts"), std::string::npos) << text;  // a 0 feature says nothing
  plan["tests"][1]["failure_class"] = {{"kind", "known-failing"}, {"evidence", "failed in the run of the base 1111"}};
  text = explain_test(plan, "tests/test_c.py::test_z");
  EXPECT_NE(text.find("in the known-failing lane after every other test (failed in the run of the base 1111)"),
            std::string::npos) << text;
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
