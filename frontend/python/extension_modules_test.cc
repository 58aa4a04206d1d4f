#include "frontend/python/extension_modules.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "frontend/python/python_test_support.h"
#include "util/file.h"

namespace fastci::frontend::python {
namespace {

namespace fs = std::filesystem;

std::vector<ExtensionModule> read(const fs::path& root, const std::string& relative) {
  auto source = util::read_file(root / relative);
  EXPECT_TRUE(source.ok()) << relative;
  return source.ok() ? find_extension_modules(relative, *source) : std::vector<ExtensionModule>{};
}

TEST(ExtensionModules, SetupPyCudaExtension) {
  auto root = testing::source_root() / "tests/fixtures/cpp";
  auto found = read(root, "ext/setup.py");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "fixture_ops");
  EXPECT_EQ(found[0].sources, (std::vector<std::string>{"csrc/ops.cpp", "csrc/shapes.cpp", "csrc/kernels.cu"}));
  std::vector<std::string> native = {"ext/csrc/kernels.cu", "ext/csrc/ops.cpp", "ext/csrc/shapes.cpp",
                                     "ext/csrc/include/shapes.h", "other/csrc/ops.cpp"};
  // Relative to setup.py's folder first: other/csrc/ops.cpp is not part of it.
  EXPECT_EQ(resolve_extension_sources(found[0], native),
            (std::vector<std::string>{"ext/csrc/kernels.cu", "ext/csrc/ops.cpp", "ext/csrc/shapes.cpp"}));
}

TEST(ExtensionModules, CppExtensionLoadThroughALocalHelper) {
  // Megatron-LM's fused_kernels (until 2023): sources assigned first, then a helper that calls
  // cpp_extension.load(name=name, sources=sources, ...).
  const std::string source =
      "from torch.utils import cpp_extension\n"
      "def load(args):\n"
      "    srcpath = pathlib.Path(__file__).parent.absolute()\n"
      "    def _helper(name, sources, extra_cuda_flags):\n"
      "        return cpp_extension.load(name=name, sources=sources, extra_cuda_cflags=extra_cuda_flags)\n"
      "    sources = [srcpath / 'scaled_softmax.cpp', srcpath / 'scaled_softmax_cuda.cu']\n"
      "    scaled_softmax_cuda = _helper(\"scaled_softmax_cuda\", sources, extra_cuda_flags)\n";
  ASSERT_TRUE(may_declare_extensions("megatron/fused_kernels/__init__.py", source));
  auto found = find_extension_modules("megatron/fused_kernels/__init__.py", source);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "scaled_softmax_cuda");
  EXPECT_EQ(found[0].line, 7);
  EXPECT_EQ(resolve_extension_sources(found[0], {"megatron/fused_kernels/scaled_softmax.cpp",
                                                 "megatron/fused_kernels/scaled_softmax_cuda.cu",
                                                 "megatron/fused_kernels/type_shim.h"}),
            (std::vector<std::string>{"megatron/fused_kernels/scaled_softmax.cpp",
                                      "megatron/fused_kernels/scaled_softmax_cuda.cu"}));
}

TEST(ExtensionModules, LoadInlineAndFilesWithoutExtensions) {
  EXPECT_FALSE(may_declare_extensions("pkg/model.py", "import torch\nx = torch.ones(3)\n"));
  EXPECT_FALSE(may_declare_extensions("csrc/ops.cpp", "cpp_extension"));
  // A name without sources is not an extension (logging.getLogger("x")).
  EXPECT_TRUE(find_extension_modules("a.py", "import logging\nlog = logging.getLogger('x.y')\n").empty());
  auto found = find_extension_modules("a.py", "cpp_extension.load(name='inline_ops', sources=['k.cu'])\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "inline_ops");
}

fs::path deepspeed_root() {
  const char* configured = std::getenv("FASTCI_DEEPSPEED_DIR");
  return configured != nullptr ? fs::path(configured) : fs::path("/work/ext/DeepSpeed");
}

TEST(ExtensionModules, DeepSpeedOpBuilders) {
  auto root = deepspeed_root();
  if (!fs::exists(root / "op_builder/transformer_inference.py"))
    GTEST_SKIP() << "no DeepSpeed work tree at " << root << " (set FASTCI_DEEPSPEED_DIR)";
  auto inference = read(root, "op_builder/transformer_inference.py");
  ASSERT_EQ(inference.size(), 1u);
  EXPECT_EQ(inference[0].name, "transformer_inference");
  EXPECT_EQ(inference[0].builder_class, "InferenceBuilder");
  EXPECT_EQ(inference[0].absolute_name, "deepspeed.ops.transformer.inference.transformer_inference_op");
  EXPECT_NE(std::find(inference[0].sources.begin(), inference[0].sources.end(),
                      "csrc/transformer/inference/csrc/pt_binding.cpp"),
            inference[0].sources.end());
  auto adam = read(root, "op_builder/cpu_adam.py");
  ASSERT_EQ(adam.size(), 1u);
  EXPECT_EQ(adam[0].name, "cpu_adam");
  EXPECT_EQ(adam[0].absolute_name, "deepspeed.ops.adam.cpu_adam_op");
  // The base class declares no NAME, and its open(file, "w") calls are not helpers: no extension.
  auto base = read(root, "op_builder/builder.py");
  for (const auto& e : base) ADD_FAILURE() << e.name << " at line " << e.line << " of builder.py";
}

}  // namespace
}  // namespace fastci::frontend::python
