#include "planner/html_report.h"

#include <gtest/gtest.h>

#include <string>

namespace fastci::planner {
namespace {

Plan plan_of(int files, int per_file) {
  Plan plan;
  plan.changes.base = std::string(40, 'a');
  plan.changes.head = std::string(40, 'b');
  plan.changes.symbols.push_back({"py:pkg.core.compute", SymbolChange::changed, frontend::SymbolKind::function,
                                  frontend::Language::python, "pkg.core.compute", "pkg/core.py", 1, 2, {}});
  for (int f = 0; f < files; ++f)
    for (int i = 0; i < per_file; ++i) {
      PlanEntry e;
      e.selected.test.file = "tests/test_" + std::to_string(f) + ".py";
      e.selected.test.id = e.selected.test.file + "::test_x[" + std::to_string(i) + "]";
      e.selected.reasons.push_back({SelectionReason::Kind::static_path, "reaches changed pkg.core.compute in 3 steps",
                                    "py:pkg.core.compute", {}});
      e.risk = 0.123456789;
      e.predicted_seconds = 12.3456;
      e.gpus = 2;
      plan.selection.selected.push_back(e.selected);
      plan.prioritized.ordered.push_back(std::move(e));
    }
  return plan;
}

TEST(HtmlReport, ThousandsOfTestsAreGroupedByFileSearchableAndRounded) {
  auto html = render_html_report(plan_of(100, 30));
  EXPECT_NE(html.find("id=\"search\""), std::string::npos);
  EXPECT_NE(html.find("<code>tests/test_7.py</code> — 30 tests, 12.3 GPU-min"), std::string::npos);
  // Only the first group is open at this size.
  EXPECT_NE(html.find("<details class=\"group\" open><summary><code>tests/test_0.py"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"group\"><summary><code>tests/test_1.py"), std::string::npos);
  EXPECT_NE(html.find(">0.12</td>"), std::string::npos);
  EXPECT_EQ(html.find("0.123456"), std::string::npos);
  EXPECT_EQ(html.find("12.3456"), std::string::npos);
  EXPECT_NE(html.find("<mark>pkg.core.compute</mark>"), std::string::npos);
  EXPECT_NE(html.find("<b>Every test runs.</b>"), std::string::npos);
}

TEST(HtmlReport, HostileIdsAreText) {
  auto plan = plan_of(1, 1);
  plan.prioritized.ordered[0].selected.test.id = "t.py::x[<script>alert(1)</script>\"]";
  auto html = render_html_report(plan);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;"), std::string::npos);
}

}  // namespace
}  // namespace fastci::planner
