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
std::vector<SelectedTest> rollout_selection() {
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
  EXPECT_TRUE(selection_drivers({}).empty());
}

TEST(SelectionDrivers, DescribesTheLargestCausesAndCountsTheRest) {
  EXPECT_EQ(describe_drivers(rollout_selection(), 2),
            "6 through `.name` in op_builder.all_ops.ALL_OPS (op_builder/all_ops.py:32), which may reach "
            "deepspeed.runtime.rollout.base.RolloutEngine.name= (a name match); 3 through `.update` in "
            "deepspeed.comm.comm.log_wrapper (op_builder/all_ops.py:32), which may reach "
            "deepspeed.utils.static_cache.DeepSpeedStaticCache.update (a name match); 2 for other reasons");
  EXPECT_EQ(describe({SelectionReason::Kind::evidence, "py:m.f", "", 4}), "4 whose recorded runs executed m.f");
}

Plan plan_selecting(std::vector<SelectedTest> selected, int skipped) {
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
  small.resize(5);
  EXPECT_EQ(plan_selecting(small, 0).why_most_tests(), "") << "too few tests to call it most";

  Plan every = plan_selecting(rollout_selection(), 0);
  EXPECT_EQ(every.why_most_tests(), "") << "every test: said once, by why_every_test";
  EXPECT_EQ(every.why_every_test().rfind("every test is selected: 6 through `.name`", 0), 0u) << every.why_every_test();
}

}  // namespace
}  // namespace fastci::planner
