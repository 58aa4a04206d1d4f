// The frontend on real framework code: DeepSpeed's csrc/ (a work tree at /work/ext/DeepSpeed or
// $FASTCI_DEEPSPEED_DIR); skipped where it is absent.
#include <gtest/gtest.h>

#include <cstdlib>

#include "frontend/cpp/cpp_frontend.h"

namespace fastci::frontend::cpp {
namespace {

namespace fs = std::filesystem;

fs::path deepspeed_root() {
  const char* configured = std::getenv("FASTCI_DEEPSPEED_DIR");
  return configured != nullptr ? fs::path(configured) : fs::path("/work/ext/DeepSpeed");
}

class DeepSpeed : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(deepspeed_root() / "csrc"))
      GTEST_SKIP() << "no DeepSpeed work tree at " << deepspeed_root() << " (set FASTCI_DEEPSPEED_DIR)";
  }

  TranslationUnitFacts parse(const std::string& source) {
    CppParseOptions options;
    options.repository = deepspeed_root();
    auto units = parse_translation_units({source}, options);
    return units.front();
  }
};

bool has_symbol(const FileFacts& facts, const std::string& id, SymbolKind kind) {
  for (const Symbol& symbol : facts.symbols)
    if (symbol.id == id && symbol.kind == kind) return true;
  return false;
}

TEST_F(DeepSpeed, SoftmaxKernelsAndTheirLaunchSites) {
  if (!fs::exists("/usr/local/cuda/include/cuda_runtime.h")) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
  const auto unit = parse("csrc/transformer/inference/csrc/softmax.cu");
  EXPECT_FALSE(unit.crashed);
  EXPECT_EQ(unit.error_count, 0) << (unit.facts.diagnostics.empty() ? "" : unit.facts.diagnostics[0].message);
  // launch_attn_softmax_v2<T> is explicitly instantiated for float, __half (and __nv_bfloat16 with BF16_AVAILABLE).
  std::size_t launches_from_v2 = 0;
  std::set<std::string> kernels;
  for (const LaunchSite& launch : unit.facts.launches) {
    if (launch.host_function.rfind("cpp:launch_attn_softmax_v2<", 0) != 0) continue;
    ++launches_from_v2;
    kernels.insert(launch.kernel);
    // The launch is written inside a macro body: the configuration reads as spelled there.
    EXPECT_EQ(launch.grid, "grid");
    EXPECT_EQ(launch.block, "block");
    EXPECT_EQ(launch.shared_memory, "0");
    EXPECT_EQ(launch.stream, "stream");
  }
  // One launch per unroll factor (1..64) and element type.
  EXPECT_EQ(launches_from_v2, 14u);
  EXPECT_EQ(kernels.size(), 14u);
  std::size_t float_kernels = 0, half_kernels = 0;
  for (const std::string& kernel : kernels) {
    EXPECT_TRUE(has_symbol(unit.facts, kernel, SymbolKind::kernel)) << kernel;
    float_kernels += kernel.rfind("cuda:attn_softmax_v2<float, ", 0) == 0;
    half_kernels += kernel.rfind("cuda:attn_softmax_v2<__half, ", 0) == 0;
  }
  EXPECT_EQ(float_kernels, 7u);
  EXPECT_EQ(half_kernels, 7u);
}

TEST_F(DeepSpeed, SoftmaxFp16BindingMapsToTheHalfSpecialization) {
  const auto unit = parse("csrc/transformer/inference/csrc/pt_binding.cpp");
  EXPECT_FALSE(unit.crashed);
  std::vector<Binding> found;
  for (const Binding& binding : unit.facts.bindings)
    if (binding.python_name == "softmax_fp16") found.push_back(binding);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].extension_module, "TORCH_EXTENSION_NAME");
  EXPECT_EQ(found[0].target.rfind("cpp:ds_softmax<__half>(at::Tensor &, at::Tensor &", 0), 0u) << found[0].target;
  EXPECT_TRUE(has_symbol(unit.facts, found[0].target, SymbolKind::function)) << found[0].target;
  bool launches_softmax = false;
  for (const Edge& edge : unit.facts.edges)
    launches_softmax |= edge.from == found[0].target && edge.to.rfind("cpp:launch_attn_softmax_v2<__half>", 0) == 0;
  EXPECT_TRUE(launches_softmax) << "ds_softmax<__half> should call launch_attn_softmax_v2<__half>";
}

TEST_F(DeepSpeed, InferenceAllReduceHasTorchLibraryDefinitionAndImplementations) {
  const auto unit = parse("csrc/cpu/comm/shm_interface.cpp");
  EXPECT_FALSE(unit.crashed);
  bool defined = false;
  std::set<std::string> keys;
  for (const Binding& binding : unit.facts.bindings) {
    if (binding.extension_module != "torch.ops.deepspeed" || binding.python_name != "inference_all_reduce_") continue;
    if (binding.dispatch_key.empty()) defined = true;
    else keys.insert(binding.dispatch_key + " " + binding.target);
  }
  EXPECT_TRUE(defined);
  EXPECT_EQ(keys, (std::set<std::string>{
                      "CPU cpp:inference_all_reduce__cpu(at::Tensor &)",
                      "Functionalize cpp:inference_all_reduce__functionalization_glue(at::Tensor &)",
                      "Meta cpp:inference_all_reduce__meta(at::Tensor &)",
                  }));
}

}  // namespace
}  // namespace fastci::frontend::cpp
