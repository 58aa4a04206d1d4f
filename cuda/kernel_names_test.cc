#include "cuda/kernel_names.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace fastci::cuda {
namespace {

// Mangled names exactly as nvcc 13 registers the kernels of tests/fixtures/cuda/templated_launches.cu.
TEST(CudaKernelNames, DescribesNvccManglings) {
  KernelName axpy = describe_kernel("_ZN7fixture4axpyIfLi4EEEvT_PKS1_PS1_i");
  EXPECT_EQ(axpy.demangled, "void fixture::axpy<float, 4>(float, float const*, float*, int)");
  EXPECT_EQ(axpy.function, "fixture::axpy");
  EXPECT_EQ(axpy.template_arguments, (std::vector<std::string>{"float", "4"}));

  KernelName elementwise = describe_kernel("_ZN7fixture11elementwiseIfNS_4ReluEEEvPT_iT0_");
  EXPECT_EQ(elementwise.demangled, "void fixture::elementwise<float, fixture::Relu>(float*, int, fixture::Relu)");
  EXPECT_EQ(elementwise.template_arguments, (std::vector<std::string>{"float", "fixture::Relu"}));

  KernelName plain = describe_kernel("_Z12plain_kernelPi");
  EXPECT_EQ(plain.demangled, "plain_kernel(int*)");
  EXPECT_EQ(plain.function, "plain_kernel");
  EXPECT_TRUE(plain.template_arguments.empty());
}

TEST(CudaKernelNames, KeepsNamesThatAreNotMangled) {
  // cuBLAS kernel and Triton kernel names as CUPTI reports them (from the traces in /work/shared).
  for (const char* name : {"ampere_sgemm_64x64_nn", "triton_poi_fused_add_cos_sin_0"}) {
    KernelName kernel = describe_kernel(name);
    EXPECT_EQ(kernel.demangled, name);
    EXPECT_EQ(kernel.function, name);
    EXPECT_TRUE(kernel.template_arguments.empty());
  }
  EXPECT_EQ(demangle("_Znot a symbol"), "_Znot a symbol");
}

TEST(CudaKernelNames, TemplateArgumentsOfPyTorchKernelNames) {
  std::string cat =
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, "
      "at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, "
      "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)";
  EXPECT_EQ(template_arguments(cat), (std::vector<std::string>{"float", "unsigned int", "2", "128", "1"}));
  EXPECT_EQ(function_name(cat), "at::native::(anonymous namespace)::CatArrayBatchedCopy");

  std::string gemv =
      "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, "
      "true, false, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, "
      "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >"
      "(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
      "cublasGemvTensorStridedBatched<float>, float>)";
  std::vector<std::string> arguments = template_arguments(gemv);
  ASSERT_EQ(arguments.size(), 12u);
  EXPECT_EQ(arguments[10], "7");
  EXPECT_EQ(arguments[11],
            "cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float "
            "const>, cublasGemvTensorStridedBatched<float>, float>");
  EXPECT_EQ(function_name(gemv), "internal::gemvx::kernel");
}

/// Kernel names of a gzipped Chrome trace (events whose category is kernel, any casing).
std::set<std::string> trace_kernel_names(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  EXPECT_NE(file, nullptr) << path;
  std::string text;
  char buffer[1 << 16];
  int got = 0;
  while (file && (got = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(got));
  if (file) gzclose(file);
  std::set<std::string> names;
  nlohmann::json trace = nlohmann::json::parse(text);
  for (const auto& event : trace["traceEvents"]) {
    std::string category = event.value("cat", "");
    if (category == "kernel" || category == "Kernel") names.insert(event.value("name", ""));
  }
  return names;
}

// Every demangled kernel name in real PyTorch profiler traces: the template arguments, joined again,
// are exactly the text between the name's outermost angle brackets.
TEST(CudaKernelNames, TemplateArgumentsRoundTripOnRealTraces) {
  std::size_t templated = 0;
  for (const char* trace : {"/data/traces/hta/timeline_analysis/sampled_rank-0.json.gz",
                            "/data/traces/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                            "/data/traces/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"}) {
    std::set<std::string> names = trace_kernel_names(std::string(FASTCI_SHARED_DIR) + trace);
    ASSERT_FALSE(names.empty()) << trace;
    for (const std::string& name : names) {
      SCOPED_TRACE(name);
      std::string function = function_name(name);
      EXPECT_FALSE(function.empty());
      std::vector<std::string> arguments = template_arguments(name);
      std::size_t at = name.find(function);
      ASSERT_NE(at, std::string::npos);
      std::size_t open = at + function.size();
      if (open >= name.size() || name[open] != '<') {
        EXPECT_TRUE(arguments.empty());
        continue;
      }
      ++templated;
      std::string joined;
      for (const std::string& argument : arguments) joined += (joined.empty() ? "" : ", ") + argument;
      EXPECT_EQ(name.compare(open + 1, joined.size(), joined), 0) << joined;
    }
  }
  EXPECT_GT(templated, 50u);
}

}  // namespace
}  // namespace fastci::cuda
