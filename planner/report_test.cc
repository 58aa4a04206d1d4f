#include "planner/report.h"

#include <gtest/gtest.h>

#include <string>

namespace fastci::planner {
namespace {

frontend::Test make_test(const std::string& file, int index) {
  frontend::Test t;
  t.file = file;
  // Parametrized ids as long as real ones (DeepSpeed's dtype x stage x offload grids).
  t.id = file + "::TestZeroStageOffload::test_step_matches_reference[dtype=bfloat16-stage=3-offload=cpu-"
                "overlap_comm=True-contiguous_gradients=False-" + std::to_string(index) + "]";
  t.symbol = "py:" + file + ".test";
  t.gpus = 2;
  return t;
}

/// A plan of `files` x `per_file` tests where every test runs, widened by a setup.py change.
Plan large_plan(int files, int per_file) {
  Plan plan;
  plan.changes.base = std::string(40, 'a');
  plan.changes.head = std::string(40, 'b');
  plan.changes.widenings.push_back({Widening::Scope::everything, "setup.py", "the build changed: every test runs", ""});
  for (int f = 0; f < files; ++f) {
    std::string file = "tests/unit/runtime/zero/test_zero_module_" + std::to_string(f) + ".py";
    plan.changes.symbols.push_back({"py:deepspeed.runtime.zero.stage3.f" + std::to_string(f), SymbolChange::changed,
                                    frontend::SymbolKind::function, frontend::Language::python,
                                    "deepspeed.runtime.zero.stage3.f" + std::to_string(f),
                                    "deepspeed/runtime/zero/stage3.py", f, f + 3, {}});
    for (int i = 0; i < per_file; ++i) {
      PlanEntry e;
      e.selected.test = make_test(file, i);
      e.selected.reasons.push_back({SelectionReason::Kind::widening, "setup.py: the build changed", {}, {}});
      e.selected.reasons.push_back({SelectionReason::Kind::static_path, "reaches changed f in 4 steps",
                                    "py:f", {{"test:" + e.selected.test.id, e.selected.test.id, frontend::EdgeKind::call},
                                             {"py:f", "deepspeed.runtime.zero.stage3.f (deepspeed/runtime/zero/stage3.py:10)",
                                              frontend::EdgeKind::call}}});
      e.gpus = 2;
      e.predicted_seconds = 30;
      plan.selection.selected.push_back(e.selected);
      plan.prioritized.ordered.push_back(std::move(e));
    }
  }
  return plan;
}

TEST(Report, ThousandsOfTestsFitAPullRequestComment) {
  Plan plan = large_plan(300, 12);  // 3,600 tests
  std::string report = render_markdown_report(plan);
  EXPECT_LE(report.size(), kMaxCommentChars);
  EXPECT_NE(report.find("**3600 of 3600 tests to run**"), std::string::npos);
  // Why everything runs is said up front, before any list.
  EXPECT_EQ(plan.why_every_test(), "setup.py: the build changed: every test runs");  // plan.json says it too
  auto every = report.find("**Every test runs.** Because setup.py: the build changed: every test runs");
  ASSERT_NE(every, std::string::npos);
  EXPECT_LT(every, report.find("## Changed symbols"));
  EXPECT_LT(report.find("## Widened selection"), report.find("## Tests to run"));
  // Grouped by file, with the rest counted rather than dropped.
  EXPECT_NE(report.find("| file | tests | GPU-min | selected by |"), std::string::npos);
  EXPECT_NE(report.find("more files | "), std::string::npos);
  EXPECT_NE(report.find("| 12 | 12.0 | widening 12 |"), std::string::npos);
  EXPECT_NE(report.find("more in plan.json"), std::string::npos);
}

TEST(Report, DiagnosticsWithoutWideningsAreNotCalledAWidening) {
  Plan plan = large_plan(2, 3);
  plan.changes.widenings.clear();
  plan.diagnostics.push_back({frontend::Diagnostic::Severity::error, "csrc/a.cpp", 0, "1 Clang errors (missing headers or unknown declarations); facts kept"});
  std::string report = render_markdown_report(plan);
  EXPECT_EQ(report.find("Widened selection"), std::string::npos) << report;
  EXPECT_NE(report.find("## Diagnostics (1)"), std::string::npos) << report;
  EXPECT_NE(report.find("none of it widened"), std::string::npos);
  EXPECT_NE(report.find("`csrc/a.cpp:0`"), std::string::npos);
}

TEST(Report, SmallPlansListEverythingAndMatchTheOldHeadline) {
  Plan plan = large_plan(2, 3);
  plan.changes.widenings.clear();
  for (auto& e : plan.prioritized.ordered) e.selected.reasons.erase(e.selected.reasons.begin());
  frontend::Test skipped = make_test("tests/unit/test_other.py", 0);
  plan.selection.skipped.push_back({skipped, "no path"});
  std::string report = render_markdown_report(plan);
  EXPECT_NE(report.find("**6 of 7 tests to run**"), std::string::npos);
  EXPECT_EQ(report.find("more in plan.json"), std::string::npos) << report;
  EXPECT_EQ(report.find("Every test runs"), std::string::npos);
  EXPECT_NE(report.find("| static-path 3 |"), std::string::npos);
  EXPECT_NE(report.find("<summary>witness path</summary>"), std::string::npos);
  EXPECT_NE(report.find("## Skipped tests (1)"), std::string::npos);
  EXPECT_NE(report.find("`tests/unit/test_other.py`: 1"), std::string::npos);
}

TEST(Report, KnownFailingTestsAreNamedInTheirLane) {
  Plan plan = large_plan(1, 2);
  plan.prioritized.ordered[1].failure_class = {FailureClass::known_failing, "failed in run 7 at the base commit"};
  std::string report = render_markdown_report(plan);
  EXPECT_NE(report.find("### Known-failing or flaky, run last (1)"), std::string::npos);
  EXPECT_NE(report.find(": known-failing — failed in run 7 at the base commit"), std::string::npos) << report;
}

TEST(Report, HostileIdsStayInsideTheirCodeSpansAndCells) {
  Plan plan = large_plan(1, 1);
  plan.changes.widenings.clear();
  auto& test = plan.prioritized.ordered[0].selected.test;
  test.id = "tests/t.py::test_x[a`b|c\n## injected]";
  test.file = "tests/t|.py";
  std::string report = render_markdown_report(plan);
  EXPECT_EQ(report.find("\n## injected"), std::string::npos);
  EXPECT_NE(report.find("``tests/t.py::test_x[a`b\\|c ## injected]``"), std::string::npos) << report;
  EXPECT_NE(report.find("`tests/t\\|.py`"), std::string::npos);
}

TEST(Report, AnyLimitIsHonouredWithAClosingNote) {
  Plan plan = large_plan(50, 4);
  for (std::size_t limit : {2000u, 8000u, 20000u}) {
    std::string report = render_markdown_report(plan, limit);
    EXPECT_LE(report.size(), limit);
    EXPECT_NE(report.find("# fastci impact report"), std::string::npos);
  }
}

}  // namespace
}  // namespace fastci::planner
