#include "planner/selection_drivers.h"

#include <gtest/gtest.h>

#include "planner/html_report.h"
#include "planner/plan.h"
#include "planner/report.h"

namespace fastci::planner {
namespace {

SelectedTest test_with(const std::string& id, std::vector<SelectionReason> reasons) {
  SelectedTest s;
  s.test.id = id;
  s.test.file = id.substr(0, id.find("::"));
  s.reasons = std::move(reasons);
  return s;
}

/// A reason through an unresolved `.name` read in `reader`, as callgraph::tests_reaching walks it.
SelectionReason through_name(const std::string& reader, const std::string& attribute, const std::string& target) {
  return {SelectionReason::Kind::name_match, "may reach added " + target,
          "py:" + target,
          {{"test:t", "t", frontend::EdgeKind::call},
           {"py:" + reader, reader + " (op_builder/all_ops.py:32)", frontend::EdgeKind::name_match},
           {"?." + attribute, "?." + attribute, frontend::EdgeKind::name_match},
           {"py:" + target, target + " (deepspeed/runtime/rollout/base.py:40)", frontend::EdgeKind::call}}};
}

SelectionReason path_to(const std::string& target) {
  return {SelectionReason::Kind::static_path, "reaches changed " + target, "py:" + target, {}};
}

/// Selected tests the way DeepSpeed 429e2ad212's plan has them: most only through name matches
/// into members of a class the commit added, a few by a real path, one by its own file.
std::vector<SelectedTest> rollout_tests() {
  std::vector<SelectedTest> out;
  for (int i = 0; i < 6; ++i)
    out.push_back(test_with("tests/unit/a.py::t" + std::to_string(i),
                            {through_name("op_builder.all_ops.ALL_OPS", "name", "deepspeed.runtime.rollout.base.RolloutEngine.name=")}));
  for (int i = 0; i < 3; ++i)
    out.push_back(test_with("tests/unit/b.py::t" + std::to_string(i),
                            {through_name("deepspeed.comm.comm.log_wrapper", "update", "deepspeed.utils.static_cache.DeepSpeedStaticCache.update")}));
  // A resolved path counts first, whatever name matches the test also has.
  out.push_back(test_with("tests/unit/c.py::t", {path_to("deepspeed.utils.static_cache.make"),
                                                 through_name("x.f", "update", "deepspeed.utils.static_cache.DeepSpeedStaticCache.update")}));
  out.push_back(test_with("tests/unit/rollout/test_new.py::t", {{SelectionReason::Kind::own_file, "its own file changed", "", {}}}));
  return out;
}

Selection rollout_selection() {
  Selection out;
  out.selected = rollout_tests();
  out.path_symbols = {"py:deepspeed.utils.static_cache.make"};
  out.selected[9].reaches = {0};
  return out;
}

TEST(SelectionDrivers, GroupsTestsByTheirFirstReasonAndTheReadANameMatchGoesThrough) {
  auto drivers = selection_drivers(rollout_selection());
  ASSERT_EQ(drivers.size(), 4u);
  EXPECT_EQ(drivers[0].kind, SelectionReason::Kind::name_match);
  EXPECT_EQ(drivers[0].tests, 6u);
  EXPECT_EQ(drivers[0].changed_symbol, "py:deepspeed.runtime.rollout.base.RolloutEngine.name=");
  EXPECT_EQ(drivers[0].through, "`.name` in op_builder.all_ops.ALL_OPS (op_builder/all_ops.py:32)");
  EXPECT_EQ(drivers[1].tests, 3u);
  EXPECT_EQ(drivers[1].through, "`.update` in deepspeed.comm.comm.log_wrapper (op_builder/all_ops.py:32)");
  // Ties keep a fixed order: the reason kinds as declared (static path before own file).
  EXPECT_EQ(drivers[2].kind, SelectionReason::Kind::static_path);
  EXPECT_EQ(drivers[2].tests, 1u);
  EXPECT_EQ(drivers[3].kind, SelectionReason::Kind::own_file);
  EXPECT_EQ(selection_drivers(rollout_selection(), 2).size(), 2u);
  EXPECT_TRUE(selection_drivers(Selection{}).empty());
}

/// A config class whose `__post_init__` changed beside two fields: each test's first reason names
/// the field it reads nearest, but every one of them runs `__post_init__`.
TEST(SelectionDrivers, TestsSelectedByPathsCountForTheChangedSymbolMostOfThemReach) {
  Selection selection;
  selection.path_symbols = {"py:m.Config.a=", "py:m.Config.__post_init__", "py:m.Config.b=", "py:m.other"};
  auto add = [&](int n, const std::string& first, std::vector<std::uint32_t> reaches) {
    for (int i = 0; i < n; ++i) {
      auto t = test_with("tests/t.py::t" + std::to_string(selection.selected.size()), {path_to(first)});
      t.reaches = reaches;
      selection.selected.push_back(std::move(t));
    }
  };
  add(5, "m.Config.a=", {0, 1});
  add(4, "m.Config.b=", {1, 2});
  add(2, "m.Config.__post_init__", {1});
  add(3, "m.other", {3});
  add(1, "m.other", {2, 3});
  auto drivers = selection_drivers(selection);
  ASSERT_EQ(drivers.size(), 2u);
  EXPECT_EQ(drivers[0].changed_symbol, "py:m.Config.__post_init__");
  EXPECT_EQ(drivers[0].tests, 11u);
  EXPECT_EQ(drivers[1].changed_symbol, "py:m.other");
  EXPECT_EQ(drivers[1].tests, 4u);
  EXPECT_EQ(describe_drivers(selection, 1), "11 through call paths to m.Config.__post_init__; 4 for other reasons");
  // A test without the sets (a plan made before them) counts for its first reason.
  selection.selected.push_back(test_with("tests/t.py::old", {path_to("m.Config.b=")}));
  EXPECT_EQ(selection_drivers(selection).back().changed_symbol, "py:m.Config.b=");
}

TEST(SelectionDrivers, DescribesTheLargestCausesAndCountsTheRest) {
  EXPECT_EQ(describe_drivers(rollout_selection(), 2),
            "6 through `.name` in op_builder.all_ops.ALL_OPS (op_builder/all_ops.py:32), which may reach "
            "deepspeed.runtime.rollout.base.RolloutEngine.name= (a name match); 3 through `.update` in "
            "deepspeed.comm.comm.log_wrapper (op_builder/all_ops.py:32), which may reach "
            "deepspeed.utils.static_cache.DeepSpeedStaticCache.update (a name match); 2 for other reasons");
  EXPECT_EQ(describe({SelectionReason::Kind::evidence, "py:m.f", "", 4}), "4 whose recorded runs executed m.f");
}

Plan plan_selecting(Selection selection, int skipped) {
  std::vector<SelectedTest> selected = std::move(selection.selected);
  Plan plan;
  plan.changes.base = std::string(40, 'a');
  plan.changes.head = std::string(40, 'b');
  for (auto& s : selected) {
    PlanEntry e;
    e.selected = s;
    e.predicted_seconds = 10;
    plan.prioritized.ordered.push_back(std::move(e));
  }
  plan.selection.selected = std::move(selected);
  plan.selection.path_symbols = std::move(selection.path_symbols);
  for (int i = 0; i < skipped; ++i) {
    SkippedTest t;
    t.test.id = "tests/unit/z.py::t" + std::to_string(i);
    t.test.file = "tests/unit/z.py";
    t.reason = "no call path to a changed symbol";
    plan.selection.skipped.push_back(std::move(t));
  }
  return plan;
}

TEST(SelectionDrivers, APlanOfMostTestsSaysWhatSelectedThem) {
  Plan most = plan_selecting(rollout_selection(), 2);  // 11 of 13
  EXPECT_EQ(most.why_every_test(), "");
  EXPECT_EQ(most.why_most_tests().rfind("11 of 13 tests are selected: 6 through `.name` in op_builder.all_ops.ALL_OPS", 0), 0u)
      << most.why_most_tests();
  EXPECT_NE(render_markdown_report(most).find("> **Most tests run.** 11 of 13 tests are selected: 6 through"), std::string::npos);
  EXPECT_NE(render_html_report(most).find("<b>Most tests run.</b> 11 of 13 tests are selected"), std::string::npos);

  EXPECT_EQ(plan_selecting(rollout_selection(), 3).why_most_tests(), "") << "11 of 14 is under four in five";
  auto small = rollout_selection();
  small.selected.resize(5);
  EXPECT_EQ(plan_selecting(small, 0).why_most_tests(), "") << "too few tests to call it most";

  Plan every = plan_selecting(rollout_selection(), 0);
  EXPECT_EQ(every.why_most_tests(), "") << "every test: said once, by why_every_test";
  EXPECT_EQ(every.why_every_test().rfind("every test is selected: 6 through `.name`", 0), 0u) << every.why_every_test();
}

}  // namespace
}  // namespace fastci::planner
