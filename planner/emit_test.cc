#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "planner/emit.h"

namespace fastci::planner {
namespace {

Plan plan_with(std::vector<std::tuple<std::string, int, double>> tests) {
  Plan plan;
  plan.changes.base = std::string(40, 'a');
  plan.changes.head = std::string(40, 'b');
  for (auto& [id, gpus, seconds] : tests) {
    PlanEntry e;
    e.selected.test.id = id;
    e.gpus = gpus;
    e.predicted_seconds = seconds;
    plan.prioritized.ordered.push_back(e);
  }
  return plan;
}

TEST(Emit, ShellQuotingSurvivesHostileIds) {
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("x[it's;rm -rf /]"), "'x[it'\"'\"'s;rm -rf /]'");
}

TEST(Emit, PytestArgsOnePerLineInPlanOrder) {
  auto plan = plan_with({{"t.py::b", 1, 5}, {"t.py::a[x y]", 1, 5}});
  EXPECT_EQ(emit_plan(plan, EmitFormat::pytest_args), "t.py::b\nt.py::a[x y]\n");
}

TEST(Emit, ShardsBalanceTimePerGpuClass) {
  auto plan = plan_with({{"a", 1, 100}, {"b", 1, 60}, {"c", 1, 50}, {"d", 4, 30}});
  auto shards = make_shards(plan, 2);
  ASSERT_EQ(shards.size(), 3u);
  EXPECT_EQ(shards[0].tests, std::vector<std::string>{"a"});
  EXPECT_EQ(shards[1].tests, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(shards[2].gpus, 4);
  auto matrix = nlohmann::json::parse(emit_plan(plan, EmitFormat::github_matrix, 2));
  EXPECT_EQ(matrix["include"].size(), 3u);
  EXPECT_EQ(matrix["include"][1]["tests"][1], "c");
}

TEST(Emit, GitlabPipelineQuotesForYamlAndShell) {
  auto plan = plan_with({{"t.py::x[\"q\"]", 2, 5}});
  auto yaml = emit_plan(plan, EmitFormat::gitlab_pipeline);
  EXPECT_NE(yaml.find("fastci-shard-1:"), std::string::npos);
  EXPECT_NE(yaml.find(R"(- "python -m pytest 't.py::x[\"q\"]'")"), std::string::npos);
  EXPECT_NE(yaml.find("FASTCI_GPUS: \"2\""), std::string::npos);
  EXPECT_NE(emit_plan(plan_with({}), EmitFormat::gitlab_pipeline).find("nothing-to-run"), std::string::npos);
}

TEST(Emit, UnknownFormatIsAnError) {
  EXPECT_FALSE(emit_format_from_string("jenkins").ok());
  EXPECT_TRUE(emit_format_from_string("github-matrix").ok());
}

}  // namespace
}  // namespace fastci::planner
