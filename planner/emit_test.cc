#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

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

/// The first test runs at a smaller world size, as plan.json says.
Plan shrunk_plan() {
  auto plan = plan_with({{"t.py::TestBig::test_step", 4, 50}, {"t.py::test_small", 1, 5}});
  auto& big = plan.prioritized.ordered[0];
  big.overrides["pytest"] = "--fastci-world-size=t.py::TestBig::test_step=2";
  big.shrink_reason = "same kernels and lines at world size 2";
  big.gpus = 2;
  return plan;
}

TEST(Emit, EveryFormatCarriesTheShrinkOverridesOfThePlan) {
  auto plan = shrunk_plan();
  const std::vector<std::string> command = {"python", "-m", "pytest", "-p", "fastci_pytest",
                                            "--fastci-world-size=t.py::TestBig::test_step=2", "t.py::TestBig::test_step"};
  EXPECT_EQ(entry_command(plan.prioritized.ordered[0]), command);
  EXPECT_EQ(emit_plan(plan, EmitFormat::pytest_args),
            "-p\nfastci_pytest\n--fastci-world-size=t.py::TestBig::test_step=2\nt.py::TestBig::test_step\n"
            "t.py::test_small\n");
  auto out = emit_plan(plan, EmitFormat::github_matrix, 1);
  auto matrix = nlohmann::json::parse(out.substr(out.find("matrix=") + 7));
  bool carried = false;
  for (const auto& shard : matrix["include"])
    for (const auto& arg : shard["args"]) carried |= arg == "--fastci-world-size=t.py::TestBig::test_step=2";
  EXPECT_TRUE(carried) << out;
  EXPECT_NE(emit_plan(plan, EmitFormat::gitlab_pipeline, 1).find("'--fastci-world-size=t.py::TestBig::test_step=2'"),
            std::string::npos);
}

TEST(Emit, AnEmptyPlanRunsNothingAndSaysSo) {
  auto empty = plan_with({});
  // pytest with no arguments would run the whole suite.
  EXPECT_EQ(emit_plan(empty, EmitFormat::pytest_args), "--ignore-glob=*\n");
  EXPECT_EQ(emit_plan(empty, EmitFormat::github_matrix), "has_tests=false\nmatrix={\"include\":[]}\n");
  EXPECT_NE(emit_plan(empty, EmitFormat::gitlab_pipeline).find("nothing-to-run"), std::string::npos);
  EXPECT_EQ(emit_plan(plan_with({{"t.py::a", 1, 1}}), EmitFormat::github_matrix).rfind("has_tests=true\n", 0), 0u);
}

TEST(Emit, HostileIdsStayOneArgumentEverywhere) {
  const std::string hostile = "t.py::test_x[$(touch pwned)-`id`-'q'-\"d\"-a: b #c\nsecond]";
  auto plan = plan_with({{hostile, 1, 5}, {"-p evil", 1, 5}, {"@args.txt", 1, 5}});
  auto args = emit_plan(plan, EmitFormat::pytest_args);
  EXPECT_EQ(args, "t.py::test_x[$(touch pwned)-`id`-'q'-\"d\"-a: b #c\\nsecond]\n./-p evil\n./@args.txt\n");
  auto yaml = emit_plan(plan, EmitFormat::gitlab_pipeline, 1);
  // One script line, double-quoted for YAML, single-quoted for the shell, the newline escaped.
  EXPECT_NE(yaml.find(R"(- "python -m pytest 't.py::test_x[$(touch pwned)-`id`-'\"'\"'q'\"'\"'-\"d\"-a: b #c\nsecond]' './-p evil' './@args.txt'")"),
            std::string::npos)
      << yaml;
  auto out = emit_plan(plan, EmitFormat::github_matrix, 1);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2);  // two output lines, whatever the ids
  auto matrix = nlohmann::json::parse(out.substr(out.find("matrix=") + 7));
  EXPECT_EQ(matrix["include"][0]["args"][0], hostile);
}

TEST(Emit, ShardsBalanceTimePerGpuClass) {
  auto plan = plan_with({{"a", 1, 100}, {"b", 1, 60}, {"c", 1, 50}, {"d", 4, 30}});
  auto shards = make_shards(plan, 2);
  ASSERT_EQ(shards.size(), 3u);
  EXPECT_EQ(shards[0].tests, std::vector<std::string>{"a"});
  EXPECT_EQ(shards[1].tests, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(shards[2].gpus, 4);
  auto out = emit_plan(plan, EmitFormat::github_matrix, 2);
  auto matrix = nlohmann::json::parse(out.substr(out.find("matrix=") + 7));
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

/// A plan that runs one test and audits two skipped ones (one of them on 2 GPUs, one hostile).
Plan audited_plan() {
  auto plan = plan_with({{"t.py::run", 1, 5}});
  plan.audit_fraction = 0.5;
  frontend::Test a, b;
  a.id = "t.py::skipped_a";
  b.id = "t.py::skipped_b[$(x)]";
  b.gpus = 2;
  plan.audit = {{a, "no changed symbol is reachable from it"}, {b, "no changed symbol is reachable from it"}};
  return plan;
}

TEST(Emit, AuditShardsNeverBlockAndRunAfterTheTests) {
  auto plan = audited_plan();
  auto out = emit_plan(plan, EmitFormat::github_matrix, 4);
  auto matrix = nlohmann::json::parse(out.substr(out.find("matrix=") + 7));
  ASSERT_EQ(matrix["include"].size(), 3u);
  EXPECT_EQ(matrix["include"][0]["audit"], false);
  EXPECT_EQ(matrix["include"][1]["audit"], true);
  EXPECT_EQ(matrix["include"][1]["tests"], nlohmann::json::array({"t.py::skipped_a"}));
  EXPECT_EQ(matrix["include"][2]["gpus"], 2);
  EXPECT_EQ(matrix["include"][2]["args"], nlohmann::json::array({"t.py::skipped_b[$(x)]"}));
  auto yaml = emit_plan(plan, EmitFormat::gitlab_pipeline);
  EXPECT_NE(yaml.find("stages: [test, audit]"), std::string::npos);
  EXPECT_NE(yaml.find("fastci-audit-2:\n  stage: audit\n  when: always\n  allow_failure: true\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find(R"(- "python -m pytest 't.py::skipped_b[$(x)]'")"), std::string::npos) << yaml;
  // pytest-args is one blocking pytest run: the audit is not in it.
  EXPECT_EQ(emit_plan(plan, EmitFormat::pytest_args), "t.py::run\n");
  // A plan that runs nothing but audits still has jobs.
  plan.prioritized.ordered.clear();
  EXPECT_EQ(emit_plan(plan, EmitFormat::gitlab_pipeline).find("nothing-to-run"), std::string::npos);
}

TEST(Emit, UnknownFormatIsAnError) {
  EXPECT_FALSE(emit_format_from_string("jenkins").ok());
  EXPECT_TRUE(emit_format_from_string("github-matrix").ok());
}

}  // namespace
}  // namespace fastci::planner
