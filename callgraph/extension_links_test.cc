// Python linked to C++ through extension modules, on the bundled extension fixture
// (tests/fixtures/cpp/ext: setup.py, a pybind11 + TORCH_LIBRARY unit, a .cu file, pytest tests).
#include "callgraph/extension_links.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "callgraph/graph.h"
#include "callgraph/files_below_test_support.h"
#include "callgraph/impact.h"
#include "callgraph/index.h"
#include "callgraph/native_index.h"

namespace fastci::callgraph {
namespace {

namespace fs = std::filesystem;
using testing::files_below;

bool has_edge(const frontend::RepositoryFacts& facts, const std::string& from, const std::string& to) {
  for (const auto& f : facts.files)
    for (const auto& e : f.edges)
      if (e.from == from && e.to == to) return true;
  return false;
}

std::vector<std::string> tests_reached(const IndexResult& index, const std::string& changed) {
  auto graph = CallGraph::build(index.facts);
  std::vector<std::string> out;
  for (const auto& hit : tests_reaching(graph, {changed})) out.push_back(hit.test_id);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

class ExtensionFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!native_frontend_available()) return;
    auto cache = IndexCache::disabled();
    IndexOptions options;
    options.show_progress = false;
    options.scratch_dir = fs::temp_directory_path();
    index_ = new IndexResult(index_repository(files_below(fs::path(FASTCI_SOURCE_DIR) / "tests/fixtures/cpp/ext"),
                                              *cache, options));
  }
  static void TearDownTestSuite() { delete index_; }
  void SetUp() override {
    if (!native_frontend_available()) GTEST_SKIP() << "fastci built without the C++/CUDA frontend";
  }
  static IndexResult* index_;
};
IndexResult* ExtensionFixture::index_ = nullptr;

TEST_F(ExtensionFixture, SetupPyNamesTheModuleOfItsSources) {
  ASSERT_EQ(index_->extensions.size(), 1u);
  EXPECT_EQ(index_->extensions[0].module.name, "fixture_ops");
  EXPECT_EQ(index_->extensions[0].files,
            (std::vector<std::string>{"csrc/kernels.cu", "csrc/ops.cpp", "csrc/shapes.cpp"}));
  EXPECT_EQ(index_->native_units, 3u);
  EXPECT_EQ(index_->includers.at("csrc/include/shapes.h"), (std::set<std::string>{"csrc/ops.cpp", "csrc/shapes.cpp"}));
  ASSERT_NE(index_->find("csrc/include/shapes.h"), nullptr);  // header symbols get their own file
}

TEST_F(ExtensionFixture, PythonCallsReachTheBoundFunctions) {
  const auto& facts = index_->facts;
  EXPECT_TRUE(has_edge(facts, "py:fixture_ext.area", "binding:fixture_ops.shapes_area"));
  EXPECT_TRUE(has_edge(facts, "binding:fixture_ops.shapes_area", "cpp:fixture::shapes_area(double, double)"));
  EXPECT_TRUE(has_edge(facts, "py:fixture_ext.scale_by_int", "binding:fixture_ops.scale_int"));
  // accumulator = fixture_ops.Accumulator(0.0); accumulator.add(value)
  EXPECT_TRUE(has_edge(facts, "py:fixture_ext.running_sum", "binding:fixture_ops.Accumulator.__init__"));
  EXPECT_TRUE(has_edge(facts, "py:fixture_ext.running_sum", "binding:fixture_ops.Accumulator.add"));
  EXPECT_TRUE(has_edge(facts, "py:fixture_ext.scale_op", "binding:torch.ops.fixture.scale_op"));
  EXPECT_GE(index_->python_to_native_links, 5u);
}

TEST_F(ExtensionFixture, AChangeInAHeaderFunctionReachesTheTestsThroughTheBinding) {
  // pytest.importorskip("fixture_ext") gives the test the package; area() -> shapes_area -> total_area
  auto reached = tests_reached(*index_, "cpp:fixture::total_area(const std::vector<const fixture::Shape *> &)");
  EXPECT_EQ(reached, (std::vector<std::string>{"tests/test_ops.py::test_area"}));
  auto scaled = tests_reached(*index_, "cpp:fixture::scale_cpu(at::Tensor, double)");
  EXPECT_EQ(scaled, (std::vector<std::string>{"tests/test_ops.py::test_scale_op"}));
}

TEST(ExtensionLinks, PlaceholderTextsNameBindings) {
  frontend::python::ExtensionModule inference{"transformer_inference",
                                              "deepspeed.ops.transformer.inference.transformer_inference_op",
                                              "InferenceBuilder", {"csrc/pt_binding.cpp"}, "op_builder/x.py", 5};
  std::vector<ResolvedExtension> extensions = {{inference, {"csrc/pt_binding.cpp"}}};
  std::vector<std::string> ids = {"binding:torch.ops.deepspeed.inference_all_reduce_",
                                  "binding:transformer_inference.softmax_fp16", "binding:x_ops.f"};
  using V = std::vector<std::string>;
  EXPECT_EQ(bindings_named_by("deepspeed.ops.op_builder.InferenceBuilder().load().softmax_fp16", extensions, ids),
            V{"binding:transformer_inference.softmax_fp16"});
  EXPECT_EQ(bindings_named_by("get_accelerator().create_op_builder(InferenceBuilder).load().softmax_fp16",
                              extensions, ids),
            V{"binding:transformer_inference.softmax_fp16"});
  EXPECT_EQ(bindings_named_by("deepspeed.ops.transformer.inference.transformer_inference_op.softmax_fp16",
                              extensions, ids),
            V{"binding:transformer_inference.softmax_fp16"});
  EXPECT_EQ(bindings_named_by("torch.ops.deepspeed.inference_all_reduce_.default", extensions, ids),
            V{"binding:torch.ops.deepspeed.inference_all_reduce_"});
  EXPECT_EQ(bindings_named_by("x_ops.f", extensions, ids), V{"binding:x_ops.f"});
  // Another builder's module, or a name the extension does not bind: no edge.
  EXPECT_TRUE(bindings_named_by("CPUAdamBuilder().load().softmax_fp16", extensions, ids).empty());
  EXPECT_TRUE(bindings_named_by("InferenceBuilder().load().softmax_fp32", extensions, ids).empty());
}

TEST(ExtensionLinks, OnlyPlaceholdersThatMayNameABindingAreLinked) {
  frontend::python::ExtensionModule inference{"transformer_inference",
                                              "deepspeed.ops.transformer.inference.transformer_inference_op",
                                              "InferenceBuilder", {"csrc/pt_binding.cpp"}, "op_builder/x.py", 5};
  std::vector<ResolvedExtension> extensions = {{inference, {"csrc/pt_binding.cpp"}}};
  frontend::RepositoryFacts facts;
  frontend::FileFacts native;
  native.path = "csrc/pt_binding.cpp";
  native.language = frontend::Language::cpp;
  for (const char* id : {"binding:transformer_inference.softmax_fp16", "binding:transformer_inference.Accumulator.__init__",
                         "binding:torch.ops.deepspeed.inference_all_reduce_", "binding:x_ops.f"}) {
    frontend::Symbol s;
    s.id = id;
    s.kind = frontend::SymbolKind::binding;
    native.symbols.push_back(s);
  }
  frontend::FileFacts python;
  python.path = "m.py";
  python.language = frontend::Language::python;
  for (const char* to : {"?InferenceBuilder().load().softmax_fp16", "?InferenceBuilder().load().Accumulator",
                         "?torch.ops.deepspeed.inference_all_reduce_.default", "?x_ops.f", "?torch.cat", "?x.view",
                         "?InferenceBuilder().load().softmax_fp32", "?(x_ops).f"})
    python.edges.push_back({"py:m.caller", to, frontend::EdgeKind::call, "", 3});
  facts.files = {python, native};
  EXPECT_EQ(link_python_to_bindings(facts, extensions), 4u);
  std::set<std::string> linked;
  for (const auto& e : facts.files[0].edges)
    if (e.to.starts_with("binding:")) linked.insert(e.to);
  EXPECT_EQ(linked, (std::set<std::string>{"binding:transformer_inference.softmax_fp16",
                                           "binding:transformer_inference.Accumulator.__init__",
                                           "binding:torch.ops.deepspeed.inference_all_reduce_", "binding:x_ops.f"}));
  // A component without a name ("(x_ops).f") is split the long way, and names nothing bound.
  EXPECT_TRUE(bindings_named_by("(x_ops).f", extensions, {"binding:x_ops.f"}).empty());
}

}  // namespace
}  // namespace fastci::callgraph
