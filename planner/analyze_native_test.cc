// fastci-analyze on C++/CUDA changes of the bundled extension fixture (tests/fixtures/cpp/ext):
// a change in a bound C++ function selects the Python tests that reach it through the binding.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "callgraph/native_index.h"
#include "evidence/store/ingest_files.h"
#include "evidence/store/store.h"
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
    // A branch off base with one sed script applied to one file.
    auto branch = [&](const std::string& name, const std::string& sed, const std::string& file) {
      return git + "checkout -qb " + name + " base && sed -i '" + sed + "' " + dir.string() + "/" + file + " && " +
             git + "commit -qam " + name + " && ";
    };
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
        "/csrc/include/shapes.h && " + git + "commit -qam header_type && " + git + "checkout -q base && " +
        branch("constant", "s/kPi = 3.14159;/kPi = 3.141592653589793;/", "csrc/include/shapes.h") +
        branch("macro", "s/\"scale with a \" #suffix \" factor\"/#suffix \" factor scaling\"/", "csrc/ops.cpp") +
        branch("prototype", "s/^double total_area(/[[nodiscard]] double total_area(/", "csrc/include/shapes.h") +
        branch("entry", "s/.def(\"add\", \\&fixture::Accumulator::add)/.def(\"add\", \\&fixture::Accumulator::add, \"adds\")/",
               "csrc/ops.cpp") +
        branch("instantiation", "s/^template void launch_scale<double>.*$//", "csrc/kernels.cu") +
        branch("include_line", "s/^#include \"shapes.h\"$/#include \"shapes.h\"\\n#include <vector>/", "csrc/shapes.cpp") +
        // a new header with an include guard, included by shapes.cpp
        git + "checkout -qb guarded_header base && printf '#ifndef FIXTURE_EXTRA_H\\n#define FIXTURE_EXTRA_H\\n"
              "double extra_area(double side);\\n#endif\\n' > " + dir.string() + "/csrc/include/extra.h && sed -i "
              "'s/^#include \"shapes.h\"$/#include \"shapes.h\"\\n#include \"extra.h\"/' " + dir.string() +
              "/csrc/shapes.cpp && " + git + "add -A && " + git + "commit -qm guarded_header && " + git + "checkout -q base && " +
        branch("include_repository_header", "s/^#include \"shapes.h\"$/#include \"shapes.h\"\\n#include \"kernels.h\"/",
               "csrc/shapes.cpp") +
        branch("header_include", "s/^#include <vector>$/#include <vector>\\n\\n#include \"kernels.h\"/", "csrc/include/shapes.h") +
        branch("include_and_body", "s/^#include \"shapes.h\"$/#include \"shapes.h\"\\n#include \"kernels.h\"/; s/return side_ \\* side_;/return side_ * side_ * 1.0;/",
               "csrc/shapes.cpp") +
        branch("comments_only", "s|^/// A running sum, bound to Python as a class.$|// A running sum (bound to Python as a class)\\n|; s/^  double total_;$/  double total_;  \\/\\/ the sum so far/",
               "csrc/include/shapes.h") +
        branch("new_declaration", "s/^double total_area(/struct Unused { int n; };\\ndouble unused_helper(double);\\ndouble total_area(/",
               "csrc/include/shapes.h") +
        branch("kernel_body", "s/output\\[i\\] = twice(input\\[i\\]) \\* factor;/output[i] = twice(input[i]) * factor * 1.0f;/",
               "csrc/kernels.cu") +
        branch("device_body", "s/  return value + value;/  return value * 2;/", "csrc/kernels.cu") +
        branch("inactive_macro", "s/^#define FIXTURE_HALF_FACTOR 0.5$/#define FIXTURE_HALF_FACTOR 0.25/", "csrc/ops.cpp") +
        git + "checkout -q base";
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

std::set<std::string> changed_ids(const Plan& plan) {
  std::set<std::string> out;
  for (const auto& s : plan.changes.symbols) out.insert(s.id);
  return out;
}

/// The plan of one fixture branch, which must map to declarations without widening.
Plan narrow_plan(const std::string& branch) {
  auto plan = analyze(options_for(branch));
  EXPECT_TRUE(plan.ok()) << plan.error().to_string();
  if (!plan.ok()) return {};
  for (const auto& w : plan->changes.widenings) ADD_FAILURE() << branch << ": widening " << w.file << ": " << w.reason;
  return std::move(*plan);
}

TEST_F(AnalyzeNative, HeaderTypeChangeReachesTheCodeUsingTheType) {
  auto plan = narrow_plan("header_type");
  EXPECT_EQ(changed_ids(plan), (std::set<std::string>{"cpp-type:fixture::Accumulator"}));
  EXPECT_EQ(selected_ids(plan), (std::set<std::string>{"tests/test_ops.py::test_running_sum"}));
  std::vector<std::string> path;
  for (const auto& step : plan.selection.selected.at(0).reasons.at(0).witness) path.push_back(step.symbol_id);
  ASSERT_GE(path.size(), 3u);
  EXPECT_EQ(path.back(), "cpp-type:fixture::Accumulator");
  EXPECT_TRUE(path[path.size() - 2].starts_with("cpp:fixture::Accumulator::")) << path[path.size() - 2];
}

TEST_F(AnalyzeNative, ConstantChangeReachesItsReadersOnly) {
  auto plan = narrow_plan("constant");
  EXPECT_EQ(changed_ids(plan), (std::set<std::string>{"cpp-var:fixture::kPi"}));
  EXPECT_EQ(selected_ids(plan), (std::set<std::string>{"tests/test_ops.py::test_area"}));
}

TEST_F(AnalyzeNative, MacroChangeReachesTheEntriesThatExpandIt) {
  auto plan = narrow_plan("macro");
  EXPECT_EQ(changed_ids(plan), (std::set<std::string>{"cpp-macro:csrc/ops.cpp:FIXTURE_DEF_SCALE"}));
  EXPECT_EQ(selected_ids(plan), (std::set<std::string>{"tests/test_ops.py::test_scale_by_int"}));
}

TEST_F(AnalyzeNative, PrototypeChangeReachesTheCallersOfItsFunction) {
  auto plan = narrow_plan("prototype");
  EXPECT_EQ(changed_ids(plan),
            (std::set<std::string>{"cpp-proto:cpp:fixture::total_area(const std::vector<const fixture::Shape *> &)@csrc/include/shapes.h"}));
  EXPECT_EQ(selected_ids(plan), (std::set<std::string>{"tests/test_ops.py::test_area"}));
}

TEST_F(AnalyzeNative, RegistrationEntryChangeIsThatBindingAlone) {
  auto plan = narrow_plan("entry");
  EXPECT_EQ(changed_ids(plan), (std::set<std::string>{"binding:fixture_ops.Accumulator.add"}));
  EXPECT_EQ(selected_ids(plan), (std::set<std::string>{"tests/test_ops.py::test_running_sum"}));
}

TEST_F(AnalyzeNative, RemovedExplicitInstantiationReachesTheCallersOfThatSpecialization) {
  if (!fs::exists("/usr/local/cuda/include/cuda_runtime.h")) GTEST_SKIP() << "kernels.cu needs the CUDA headers";
  auto plan = narrow_plan("instantiation");
  const std::string specialization = "cpp:fixture::launch_scale<double>(double *, const double *, int, float, CUstream_st *)";
  EXPECT_EQ(changed_ids(plan), (std::set<std::string>{"cpp-inst:" + specialization + "@csrc/kernels.cu", specialization}));
  // scale() dispatches to it: every test reaching scale() would now fail to link.
  EXPECT_EQ(selected_ids(plan),
            (std::set<std::string>{"tests/test_ops.py::test_scale[0.5]", "tests/test_ops.py::test_scale[2.0]",
                                   "tests/test_ops.py::test_scale_op", "tests/test_ops.py::test_scale_by_int"}));
}

TEST_F(AnalyzeNative, NewDeclarationsNoCodeUsesReachNoTest) {
  auto plan = narrow_plan("new_declaration");
  EXPECT_EQ(changed_ids(plan), (std::set<std::string>{"cpp-type:fixture::Unused",
                                                      "cpp-proto:cpp:fixture::unused_helper(double)@csrc/include/shapes.h"}));
  for (const auto& s : plan.changes.symbols) EXPECT_EQ(s.change, SymbolChange::added);
  EXPECT_TRUE(selected_ids(plan).empty());
}

TEST_F(AnalyzeNative, AMacroNamedOnlyInAnInactiveBranchWidensToTheUnitsReadingThatFile) {
  auto plan = analyze(options_for("inactive_macro"));
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  EXPECT_TRUE(changed_ids(*plan).contains("cpp-macro:csrc/ops.cpp:FIXTURE_HALF_FACTOR"));
  ASSERT_EQ(plan->changes.widenings.size(), 1u);
  EXPECT_EQ(plan->changes.widenings[0].scope, Widening::Scope::native_units);
  EXPECT_EQ(plan->changes.widenings[0].file, "csrc/ops.cpp");
  EXPECT_NE(plan->changes.widenings[0].reason.find("line 68"), std::string::npos) << plan->changes.widenings[0].reason;
  EXPECT_TRUE(selected_ids(*plan).contains("tests/test_ops.py::test_area"));  // ops.cpp's bindings count as changed
}

TEST_F(AnalyzeNative, CommentsInAHeaderChangeNothing) {
  auto plan = narrow_plan("comments_only");
  EXPECT_TRUE(plan.changes.symbols.empty());
  EXPECT_TRUE(selected_ids(plan).empty());
  ASSERT_EQ(plan.changes.files.size(), 1u);
  EXPECT_EQ(plan.changes.files[0].note, "formatting, comments or docstrings only");
}

TEST_F(AnalyzeNative, IncludeLineChangeWidensToTheUnitsReadingTheFileAndSaysWhichLine) {
  auto plan = analyze(options_for("include_line"));
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  ASSERT_EQ(plan->changes.widenings.size(), 1u);
  EXPECT_EQ(plan->changes.widenings[0].scope, Widening::Scope::native_units);
  EXPECT_EQ(plan->changes.widenings[0].file, "csrc/shapes.cpp");
  EXPECT_NE(plan->changes.widenings[0].reason.find("line 2 (`#include <vector>`)"), std::string::npos)
      << plan->changes.widenings[0].reason;
  auto changed = changed_ids(*plan);
  EXPECT_TRUE(changed.contains("cpp:fixture::Accumulator::add(double)"));  // compiled in shapes.cpp
  EXPECT_FALSE(changed.contains("binding:fixture_ops.shapes_area"));        // ops.cpp does not read shapes.cpp
}

TEST_F(AnalyzeNative, AnIncludeOfARepositoryHeaderChangesOnlyTheFunctionsUsingWhatItBrings) {
  // shapes.cpp now also reads kernels.h (launch_scale, launch_fill), which none of its functions
  // calls: no function of the unit changes, nothing widens, no test runs, and the note says why.
  auto plan = narrow_plan("include_repository_header");
  for (const auto& s : plan.changes.symbols) EXPECT_EQ(s.kind, frontend::SymbolKind::module) << s.id;
  EXPECT_TRUE(selected_ids(plan).empty());
  ASSERT_EQ(plan.changes.files.size(), 1u);
  EXPECT_NE(plan.changes.files[0].note.find("line 2 (`#include \"kernels.h\"`) newly brings"), std::string::npos)
      << plan.changes.files[0].note;
  EXPECT_NE(plan.changes.files[0].note.find("no function uses their declarations"), std::string::npos)
      << plan.changes.files[0].note;
}

TEST_F(AnalyzeNative, AnIncludeBesideABodyChangeIsStillMappedIncludeByInclude) {
  // The changed body line lies inside Square::area: it is that function's, not a file-level token
  // (DeepSpeed 010c6e917 adds an include and a call in one unit the same way).
  auto plan = narrow_plan("include_and_body");
  EXPECT_EQ(changed_ids(plan), (std::set<std::string>{"cpp-file:csrc/shapes.cpp", "cpp:fixture::Square::area() const"}))
      << plan.changes.files[0].note;
  EXPECT_NE(plan.changes.files[0].note.find("newly brings"), std::string::npos) << plan.changes.files[0].note;
}

TEST_F(AnalyzeNative, AnIncludeAddedToAHeaderIsMappedInEveryUnitReadingIt) {
  // shapes.h now includes kernels.h: ops.cpp read it already, shapes.cpp reads it only now, and no
  // function of shapes.cpp or of shapes.h uses launch_scale or launch_fill.
  auto plan = narrow_plan("header_include");
  for (const auto& s : plan.changes.symbols) EXPECT_EQ(s.kind, frontend::SymbolKind::module) << s.id;
  EXPECT_TRUE(selected_ids(plan).empty());
  ASSERT_EQ(plan.changes.files.size(), 1u);
  EXPECT_NE(plan.changes.files[0].note.find("newly brings 1 header(s) (csrc/include/kernels.h) into 2 unit(s): no "
                                            "function uses their declarations"),
            std::string::npos)
      << plan.changes.files[0].note;
}

TEST_F(AnalyzeNative, ANewHeadersIncludeGuardIsNoMacroNamedOutsideCode) {
  // FIXTURE_EXTRA_H is named by `#ifndef` outside every declaration, right above its #define: an
  // include guard. narrow_plan fails on any widening.
  auto plan = narrow_plan("guarded_header");
  EXPECT_TRUE(changed_ids(plan).contains("cpp-macro:csrc/include/extra.h:FIXTURE_EXTRA_H"));
  EXPECT_TRUE(selected_ids(plan).empty());
}

TEST_F(AnalyzeNative, FunctionsClangCouldNotResolveCountAsChangedWhenTheirUnitReadsTheChange) {
  const auto dir = fs::temp_directory_path() / ("fastci_analyze_errors_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(fs::path(FASTCI_SOURCE_DIR) / "tests/fixtures/cpp/errors", dir, fs::copy_options::recursive);
  const std::string git = "git -C " + dir.string() + " -c user.name=t -c user.email=t@example.org ";
  ASSERT_EQ(sh(git + "init -q && " + git + "add -A && " + git + "commit -qm base && " + git + "tag base && sed -i " +
               "'s/return value + 1;/return value + 2;/' " + dir.string() + "/broken.cpp && " + git + "commit -qam helper"
               " >/dev/null"),
            0);
  AnalyzeOptions o;
  o.repository = dir;
  o.base = "base";
  o.head = "HEAD";
  o.show_progress = false;
  o.state_dir = dir / ".fastci-test";
  auto plan = analyze(o);
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  // broken() holds the error (line 6): the call it makes may reach helper() by a path Clang lost.
  EXPECT_EQ(changed_ids(*plan), (std::set<std::string>{"cpp:helper(int)", "cpp:broken(int)"}));
  ASSERT_EQ(plan->changes.widenings.size(), 1u);
  EXPECT_EQ(plan->changes.widenings[0].scope, Widening::Scope::symbol);
  EXPECT_EQ(plan->changes.widenings[0].detail, "cpp:broken(int)");
  EXPECT_NE(plan->changes.widenings[0].reason.find("line 6"), std::string::npos) << plan->changes.widenings[0].reason;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fastci::planner

namespace fastci::planner {
namespace {

/// One GPU CI run at base: each test covered its own lines and launched the kernels named (as
/// Kineto names them); `gpu` false is a run on a machine without a GPU, which launches nothing.
/// The fixture repository's `base` commit, which recorded evidence is attributed to.
std::string base_commit() {
  std::string base;
  FILE* pipe = ::popen(("git -C " + extension_repo().string() + " rev-parse base").c_str(), "r");
  char line[64] = {};
  if (pipe && std::fgets(line, sizeof line, pipe)) base = std::string(line, 40);
  if (pipe) ::pclose(pipe);
  return base;
}

std::string store_with_launches(const std::string& name,
                                const std::vector<std::pair<std::string, std::vector<std::string>>>& tests) {
  auto path = extension_repo() / (name + ".db");
  fs::remove(path);
  auto store = evidence::Store::open("sqlite://" + path.string());
  EXPECT_TRUE(store.ok());
  const std::string base = base_commit();
  auto ingested = (*store)->ingest(
      [&](evidence::EvidenceSink& sink) {
        sink.begin_run(evidence::Run{base, "2026-12-01T10:00:00Z", "ci", "{}", "test", ""});
        for (const auto& [id, kernels] : tests) {
          evidence::TestEvidence t;
          t.test_id = id;
          t.outcome = evidence::Outcome::passed;
          t.duration_seconds = 5;
          t.coverage.push_back({"tests/test_ops.py", {{1, 40}}, {}});
          for (const auto& k : kernels) t.kernels.push_back({k, "1,1,1", "256,1,1", 0, {}, 1, 3.0});
          sink.add_test(std::move(t));
        }
        return util::Status{};
      },
      "test", "gpu-run");
  EXPECT_TRUE(ingested.ok()) << ingested.error().to_string();
  return "sqlite://" + path.string();
}

const char* kScaleFloat = "void fixture::scale_kernel<float, 4>(float*, float const*, int, float)";
const char* kScaleDouble = "void fixture::scale_kernel<double, 4>(double*, double const*, int, float)";
const char* kAtenFill =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
    ">(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";

const std::set<std::string> kScaleTests{"tests/test_ops.py::test_scale[0.5]", "tests/test_ops.py::test_scale[2.0]",
                                         "tests/test_ops.py::test_scale_op", "tests/test_ops.py::test_scale_by_int"};

/// Plans `branch` statically (every scale test reaches the change) and then with GPU evidence in which
/// test_scale_op launched only ATen's fill: the others are selected with reasons holding every text of
/// `reason_parts`, test_scale_op is skipped by its launches.
void expect_selected_by_launches(const std::string& branch, const std::vector<std::string>& reason_parts) {
  auto statically = analyze(options_for(branch));
  ASSERT_TRUE(statically.ok()) << statically.error().to_string();
  ASSERT_EQ(selected_ids(*statically), kScaleTests);
  auto options = options_for(branch);
  options.evidence_store = store_with_launches("gpu-" + branch,
                                               {{"tests/test_ops.py::test_scale[0.5]", {kScaleFloat}},
                                                {"tests/test_ops.py::test_scale[2.0]", {kScaleFloat, kAtenFill}},
                                                {"tests/test_ops.py::test_scale_op", {kAtenFill}},
                                                {"tests/test_ops.py::test_scale_by_int", {kScaleDouble}},
                                                {"tests/test_ops.py::test_area", {}}});
  auto plan = analyze(options);
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  EXPECT_EQ(selected_ids(*plan), (std::set<std::string>{"tests/test_ops.py::test_scale[0.5]",
                                                        "tests/test_ops.py::test_scale[2.0]",
                                                        "tests/test_ops.py::test_scale_by_int"}));
  for (const auto& s : plan->selection.selected) {
    ASSERT_FALSE(s.reasons.empty());
    EXPECT_EQ(s.reasons[0].kind, SelectionReason::Kind::evidence) << s.test.id;
    for (const auto& part : reason_parts) EXPECT_NE(s.reasons[0].text.find(part), std::string::npos) << s.reasons[0].text;
  }
  bool skipped_by_launches = false;
  for (const auto& s : plan->selection.skipped)
    if (s.test.id == "tests/test_ops.py::test_scale_op") skipped_by_launches = s.reason.starts_with("evidence: run ");
  EXPECT_TRUE(skipped_by_launches);
}

TEST_F(AnalyzeNative, AChangedKernelSelectsExactlyTheTestsWhoseRunsLaunchedIt) {
  // Were test_scale_op's run to launch only ATen's fill (on an H200 it does launch scale_kernel, see
  // the H200 test below), its fresh evidence would rule the static path out.
  expect_selected_by_launches("kernel_body", {"launched changed kernel fixture::scale_kernel"});

  // The same tests recorded on a machine without a GPU launched nothing: that rules nothing out.
  auto cpu = options_for("kernel_body");
  cpu.evidence_store = store_with_launches("cpu", {{"tests/test_ops.py::test_scale[0.5]", {}},
                                                   {"tests/test_ops.py::test_scale[2.0]", {}},
                                                   {"tests/test_ops.py::test_scale_op", {}},
                                                   {"tests/test_ops.py::test_scale_by_int", {}}});
  auto cpu_plan = analyze(cpu);
  ASSERT_TRUE(cpu_plan.ok()) << cpu_plan.error().to_string();
  EXPECT_EQ(selected_ids(*cpu_plan), kScaleTests);
  for (const auto& s : cpu_plan->selection.selected)
    EXPECT_NE(s.reasons[0].text.find("launched no kernel: it ran without a GPU"), std::string::npos)
        << s.reasons[0].text;
}

TEST_F(AnalyzeNative, AChangedDeviceFunctionSelectsTheTestsWhoseRunsLaunchedAKernelCallingIt) {
  // fixture::twice is __device__ code that only scale_kernel calls: no native coverage can show it ran,
  // the launches of the kernels calling it can.
  expect_selected_by_launches("device_body", {"launched kernel fixture::scale_kernel<",
                                              "which calls changed device function fixture::twice<"});
}

TEST_F(AnalyzeNative, KernelEvidenceRecordedOnAnH200ConfirmsTheTestsThatLaunchedTheChangedKernel) {
  // tests/data/gpu/fixture-ext: the fixture's tests run on an H200 by cuda/record_fixture_evidence.sh,
  // under the pytest plugin and the CUPTI collector. Every GPU test, test_scale_op's dispatcher path and
  // test_scale_by_int's float tensor included, launched scale_kernel<float, 4>; the CPU tests none.
  const auto data = fs::path(FASTCI_SOURCE_DIR) / "tests/data/gpu/fixture-ext";
  auto path = extension_repo() / "h200.db";
  fs::remove(path);
  auto store = evidence::Store::open("sqlite://" + path.string());
  ASSERT_TRUE(store.ok()) << store.error().to_string();
  const std::string base = base_commit();
  evidence::IngestOptions ingest;
  ingest.commit = base;
  ingest.run_name = "h200";
  auto summary = evidence::ingest_files(**store, {data / "plugin.jsonl", data / "cupti.jsonl"}, "auto", ingest);
  ASSERT_TRUE(summary.ok()) << summary.error().to_string();
  ASSERT_EQ(summary->failed(), 0u) << evidence::format_summary(*summary);
  store->reset();

  auto options = options_for("kernel_body");
  options.evidence_store = "sqlite://" + path.string();
  auto plan = analyze(options);
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  EXPECT_EQ(selected_ids(*plan), (std::set<std::string>{"tests/test_ops.py::test_scale[0.5]",
                                                        "tests/test_ops.py::test_scale[2.0]",
                                                        "tests/test_ops.py::test_scale_op",
                                                        "tests/test_ops.py::test_scale_by_int"}));
  for (const auto& s : plan->selection.selected) {
    bool launched = false;
    for (const auto& r : s.reasons)
      launched |= r.kind == SelectionReason::Kind::evidence &&
                  r.text.find("launched changed kernel fixture::scale_kernel") != std::string::npos;
    EXPECT_TRUE(launched) << s.test.id;
  }
}

}  // namespace
}  // namespace fastci::planner
