// fastci-analyze on C++/CUDA changes of the bundled extension fixture (tests/fixtures/cpp/ext):
// a change in a bound C++ function selects the Python tests that reach it through the binding.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "callgraph/native_index.h"
#include "planner/analyze.h"

namespace fastci::planner {
namespace {

namespace fs = std::filesystem;

int sh(const std::string& command) { return std::system(command.c_str()); }

/// The fixture as a repository: `base`, then one branch per change (sed edits of real lines).
fs::path extension_repo() {
  static fs::path path = [] {
    auto dir = fs::temp_directory_path() / ("fastci_analyze_native_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::copy(fs::path(FASTCI_SOURCE_DIR) / "tests/fixtures/cpp/ext", dir, fs::copy_options::recursive);
    std::string git = "git -C " + dir.string() + " -c user.name=t -c user.email=t@example.org ";
    std::string script =
        git + "init -q && " + git + "add -A && " + git + "commit -qm base && " + git + "tag base && " +
        // a body change in a function the binding reaches through a call
        git + "checkout -qb body && sed -i 's/0.0, 1e9/0.0, 1e8/' " + dir.string() + "/csrc/shapes.cpp && " +
        git + "commit -qam body && " + git + "checkout -q base && " +
        // a CPU implementation registered with TORCH_LIBRARY_IMPL
        git + "checkout -qb cpu_impl && sed -i 's/return input \\* factor;/return input * factor * 1.0;/' " +
        dir.string() + "/csrc/ops.cpp && " + git + "commit -qam cpu_impl && " + git + "checkout -q base && " +
        // a member type in a header: outside every function
        git + "checkout -qb header_type && sed -i 's/  double total_;/  long double total_;/' " + dir.string() +
        "/csrc/include/shapes.h && " + git + "commit -qam header_type && " + git + "checkout -q base";
    EXPECT_EQ(sh(script + " >/dev/null"), 0);
    return dir;
  }();
  return path;
}

AnalyzeOptions options_for(const std::string& head) {
  AnalyzeOptions o;
  o.repository = extension_repo();
  o.base = "base";
  o.head = head;
  o.show_progress = false;
  o.state_dir = extension_repo() / ".fastci-test";
  return o;
}

std::set<std::string> selected_ids(const Plan& plan) {
  std::set<std::string> out;
  for (const auto& s : plan.selection.selected) out.insert(s.test.id);
  return out;
}

class AnalyzeNative : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!callgraph::native_frontend_available()) GTEST_SKIP() << "fastci built without the C++/CUDA frontend";
  }
};

TEST_F(AnalyzeNative, BodyChangeSelectsTheTestThatReachesItThroughTheBinding) {
  auto plan = analyze(options_for("body"));
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  ASSERT_EQ(plan->changes.symbols.size(), 1u);
  EXPECT_EQ(plan->changes.symbols[0].id, "cpp:fixture::total_area(const std::vector<const fixture::Shape *> &)");
  EXPECT_TRUE(plan->changes.widenings.empty());
  EXPECT_EQ(selected_ids(*plan), (std::set<std::string>{"tests/test_ops.py::test_area"}));
  const auto& witness = plan->selection.selected[0].reasons[0].witness;
  std::vector<std::string> path;
  for (const auto& step : witness) path.push_back(step.symbol_id);
  EXPECT_EQ(path, (std::vector<std::string>{"test:tests/test_ops.py::test_area", "py:tests.test_ops.test_area",
                                            "py:fixture_ext.area", "binding:fixture_ops.shapes_area",
                                            "cpp:fixture::shapes_area(double, double)",
                                            "cpp:fixture::total_area(const std::vector<const fixture::Shape *> &)"}));
  EXPECT_EQ(plan->timing.native_units, 3u);
  // A second run reads every unit from the cache.
  auto again = analyze(options_for("body"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->timing.native_units_parsed, 0u);
  EXPECT_EQ(selected_ids(*again), selected_ids(*plan));
}

TEST_F(AnalyzeNative, DispatchImplementationChangeSelectsTheTorchOpTest) {
  auto plan = analyze(options_for("cpu_impl"));
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  ASSERT_EQ(plan->changes.symbols.size(), 1u);
  EXPECT_EQ(plan->changes.symbols[0].id, "cpp:fixture::scale_cpu(at::Tensor, double)");
  EXPECT_EQ(selected_ids(*plan), (std::set<std::string>{"tests/test_ops.py::test_scale_op"}));
}

TEST_F(AnalyzeNative, HeaderTypeChangeWidensToTheUnitsThatIncludeIt) {
  auto plan = analyze(options_for("header_type"));
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  ASSERT_EQ(plan->changes.widenings.size(), 1u);
  EXPECT_EQ(plan->changes.widenings[0].scope, Widening::Scope::native_units);
  EXPECT_EQ(plan->changes.widenings[0].file, "csrc/include/shapes.h");
  std::set<std::string> changed;
  for (const auto& s : plan->changes.symbols) changed.insert(s.id);
  EXPECT_TRUE(changed.contains("cpp:fixture::Accumulator::add(double)"));  // compiled in shapes.cpp
  EXPECT_TRUE(changed.contains("binding:fixture_ops.shapes_area"));         // ops.cpp includes it too
  auto selected = selected_ids(*plan);
  EXPECT_TRUE(selected.contains("tests/test_ops.py::test_running_sum"));
  EXPECT_TRUE(selected.contains("tests/test_ops.py::test_area"));
}

}  // namespace
}  // namespace fastci::planner
