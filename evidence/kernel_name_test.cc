#include "evidence/kernel_name.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "evidence/ingest/fastci_jsonl_reader.h"
#include "evidence/ingest/kineto_reader.h"
#include "evidence/ingest/lcov_recording_sink.h"

namespace fastci::evidence {
namespace {

const std::filesystem::path kTraces = std::filesystem::path(FASTCI_SHARED_DIR) / "data/traces";

TEST(KernelName, TraceAndClangSpellingsOfOneKernelMeet) {
  // Kineto prints what the demangler prints; the C++ frontend names the symbol as Clang prints it.
  auto traced = parse_kernel_name("void fixture::scale_kernel<float, 4>(float*, float const*, int, float)");
  auto symbol = kernel_symbol_name("cuda:fixture::scale_kernel<float, 4>(float *, const float *, int, float)");
  EXPECT_EQ(traced.qualified, "fixture::scale_kernel<float, 4>");
  EXPECT_EQ(traced.base, "fixture::scale_kernel");
  EXPECT_EQ(traced.qualified, symbol.qualified);
  EXPECT_EQ(traced.origin, KernelOrigin::unattributed);
  // The interposer may report the mangled name (here g++'s / Clang's Itanium mangling of the same kernel).
  EXPECT_EQ(parse_kernel_name("_ZN7fixture12scale_kernelIfLi4EEEvPT_PKS1_if").qualified, symbol.qualified);
  EXPECT_EQ(kernel_symbol_name("cuda:fixture::fill_kernel(float *, int, float)").qualified, "fixture::fill_kernel");
}

TEST(KernelName, ReturnTypesAnonymousNamespacesAndNestedTemplates) {
  auto gemv = parse_kernel_name(
      "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, "
      "false, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, "
      "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<"
      "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
      "cublasGemvTensorStridedBatched<float>, float>)");
  EXPECT_EQ(gemv.base, "internal::gemvx::kernel");
  EXPECT_EQ(gemv.origin, KernelOrigin::cublas);
  auto softmax = parse_kernel_name(
      "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true>(float*, float const*, int, int, "
      "int)");
  EXPECT_EQ(softmax.qualified, "(anonymous namespace)::softmax_warp_forward<float, float, float, 10, true>");
  EXPECT_EQ(softmax.origin, KernelOrigin::aten);
  auto cat = parse_kernel_name(
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>(float*, "
      "at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, "
      "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)");
  EXPECT_EQ(cat.qualified, "at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>");
  EXPECT_EQ(cat.origin, KernelOrigin::aten);
  EXPECT_EQ(parse_kernel_name("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)").origin, KernelOrigin::nccl);
  EXPECT_EQ(parse_kernel_name("triton_poi_fused_add_cos_sin_0").origin, KernelOrigin::triton);
  EXPECT_EQ(parse_kernel_name("volta_sgemm_128x32_nt").origin, KernelOrigin::cublas);
  EXPECT_EQ(parse_kernel_name("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1").origin, KernelOrigin::cudnn);
  EXPECT_EQ(parse_kernel_name("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>("
                              "cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4::Params)")
                .origin,
            KernelOrigin::cutlass);
}

/// Every distinct kernel name of the real traces (data/traces/README.md), read by the Kineto reader.
std::set<std::string> trace_kernel_names() {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kTraces)) {
    if (entry.path().string().ends_with(".json.gz") == false) continue;
    RecordingSink sink;
    auto status = read_kineto(entry.path(), sink, KinetoOptions{.test_id = "t"});
    EXPECT_TRUE(status.ok()) << entry.path() << ": " << status.error().to_string();
    for (const auto& [id, test] : sink.tests)
      for (const auto& k : test.kernels) names.insert(k.name);
  }
  return names;
}

TEST(KernelName, EveryNameTheCuptiCollectorSawOnAnH200IsClassified) {
  // tests/data/gpu/README.md: cuda/gpu_check.sh's run on an H200 with PyTorch 2.11 and CUDA 13.
  RecordingSink sink;
  auto status = read_fastci_jsonl(std::filesystem::path(FASTCI_SOURCE_DIR) / "tests/data/gpu/h200-torch2.11-cupti.jsonl", sink);
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  std::map<std::string, KernelOrigin> origins;
  std::size_t launches = 0;
  for (const auto& [id, test] : sink.tests)
    for (const auto& k : test.kernels) {
      origins[k.name] = parse_kernel_name(k.name).origin;
      launches += k.count;
    }
  EXPECT_EQ(origins.size(), 19u);
  EXPECT_EQ(launches, 110u);
  std::map<KernelOrigin, std::size_t> by_origin;
  for (const auto& [name, origin] : origins) {
    EXPECT_NE(origin, KernelOrigin::unattributed) << name;
    ++by_origin[origin];
  }
  EXPECT_EQ(origins.at("nvjet_sm90_tst_64x16_64x16_2x4_h_bz_NNT"), KernelOrigin::cublas);
  EXPECT_EQ(by_origin[KernelOrigin::aten], 16u);
  EXPECT_EQ(by_origin[KernelOrigin::cublas], 3u);
}

TEST(KernelName, EveryNameOfTheRealTracesIsClassified) {
  auto names = trace_kernel_names();
  ASSERT_EQ(names.size(), 402u);  // distinct names over the eight traces (data/traces/README.md's counts)
  std::map<KernelOrigin, std::size_t> by_origin;
  std::set<std::string> unattributed;
  for (const auto& name : names) {
    auto parsed = parse_kernel_name(name);
    EXPECT_FALSE(parsed.qualified.empty()) << name;
    // The parameter list is gone: outside template arguments only "(anonymous namespace)" has a '('.
    std::string base = parsed.base;
    for (auto at = base.find("(anonymous namespace)"); at != std::string::npos; at = base.find("(anonymous namespace)"))
      base.erase(at, 21);
    EXPECT_EQ(base.find('('), std::string::npos) << name;
    ++by_origin[parsed.origin];
    if (parsed.origin == KernelOrigin::unattributed) unattributed.insert(parsed.qualified);
  }
  // Names in no namespace that says where they come from: the multi-tensor Adam of apex and DeepSpeed
  // (csrc/includes/multi_tensor_apply.cuh), fbgemm_gpu's kernels outside its namespace (the HTA traces
  // of a recommendation model), ATen's Repeat.cu kernel. In a repository defining them they map to its
  // own __global__ symbols; elsewhere `fastci evidence stats` lists them as unattributed.
  EXPECT_EQ(unattributed, (std::set<std::string>{
                              "bounds_check_indices_kernel<long>",
                              "compute_cuda_kernel<long>",
                              "linearize_index_kernel<long>",
                              "multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float, float, "
                              "float, float, float, float, adamMode_t, float, int, int>",
                              "permute_pooled_embs_kernel<float>",
                              "recat_copy_async_kernel<float>",
                          }));
  EXPECT_EQ(by_origin[KernelOrigin::aten], 164u);
  EXPECT_EQ(by_origin[KernelOrigin::cublas], 38u);
  EXPECT_EQ(by_origin[KernelOrigin::cudnn], 85u);
  EXPECT_EQ(by_origin[KernelOrigin::cutlass], 63u);
  EXPECT_EQ(by_origin[KernelOrigin::nccl], 3u);
  EXPECT_EQ(by_origin[KernelOrigin::triton], 1u);
  EXPECT_EQ(by_origin[KernelOrigin::library], 42u);
}

TEST(KernelName, StatsCountOriginsAndListTheUnattributedMostLaunchedFirst) {
  std::string text = format_kernel_origins({{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 4},
                                            {"void fixture::fill_kernel(float*, int, float)", 2},
                                            {"void fixture::scale_kernel<float, 4>(float*, float const*, int, float)", 9},
                                            {"volta_sgemm_128x32_nt", 7}},
                                           1);
  EXPECT_EQ(text,
            "  kernel names:  4 (cublas 1, nccl 1, unattributed 2)\n"
            "  unattributed kernels (no known library; the repository's own map to its __global__ symbols):\n"
            "    fixture::scale_kernel<float, 4>  (9 launches)\n"
            "    ... and 1 more\n");
}

}  // namespace
}  // namespace fastci::evidence
