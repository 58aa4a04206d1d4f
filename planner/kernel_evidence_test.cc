#include "planner/kernel_evidence.h"

#include <gtest/gtest.h>

namespace fastci::planner {
namespace {

TEST(KernelEvidence, AnInstantiationMatchesItselfATemplateEveryInstantiation) {
  auto float4 = evidence::kernel_symbol_name("cuda:fixture::scale_kernel<float, 4>(float *, const float *, int, float)");
  auto any = evidence::kernel_symbol_name("cuda:fixture::scale_kernel(T *, const T *, int, float)");
  const char* launched_float = "void fixture::scale_kernel<float, 4>(float*, float const*, int, float)";
  const char* launched_double = "void fixture::scale_kernel<double, 4>(double*, double const*, int, float)";
  EXPECT_TRUE(launches_symbol(float4, launched_float));
  EXPECT_FALSE(launches_symbol(float4, launched_double));
  EXPECT_TRUE(launches_symbol(any, launched_float));
  EXPECT_TRUE(launches_symbol(any, launched_double));
  EXPECT_FALSE(launches_symbol(any, "void fixture::scale_kernel_v2<float>(float*)"));
  EXPECT_FALSE(launches_symbol(any, "void other::scale_kernel<float, 4>(float*, float const*, int, float)"));
  EXPECT_TRUE(is_native_kernel(frontend::SymbolKind::kernel, frontend::Language::cuda));
  EXPECT_FALSE(is_native_kernel(frontend::SymbolKind::function, frontend::Language::cuda));
}

TEST(KernelEvidence, LaunchContextsClassGridAndSharedMemoryButKeepBlockAndTemplateArguments) {
  evidence::KernelLaunch a{"k", "100,1,1", "256,1,1", 0, {"float", "4"}, 1, 0};
  auto a_bit_bigger = a;
  a_bit_bigger.grid = "110,1,1";
  auto other_block = a;
  other_block.block = "128,1,1";
  auto other_dtype = a;
  other_dtype.template_arguments = {"double", "4"};
  auto much_bigger = a;
  much_bigger.grid = "10000,1,1";
  EXPECT_EQ(launch_context_key(a), launch_context_key(a_bit_bigger));
  EXPECT_NE(launch_context_key(a), launch_context_key(other_block));
  EXPECT_NE(launch_context_key(a), launch_context_key(other_dtype));
  EXPECT_NE(launch_context_key(a), launch_context_key(much_bigger));
}

}  // namespace
}  // namespace fastci::planner
