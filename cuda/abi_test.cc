// The interposer reads launch configurations through its own mirrors of the CUDA types; they must lay
// out exactly like the toolkit's.
#include "cuda/abi.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>

namespace fastci::cuda {
namespace {

using abi::DriverLaunchConfig;
using abi::RuntimeLaunchConfig;

static_assert(sizeof(abi::Dim3) == sizeof(dim3));
static_assert(sizeof(RuntimeLaunchConfig) == sizeof(cudaLaunchConfig_t));
static_assert(offsetof(RuntimeLaunchConfig, grid) == offsetof(cudaLaunchConfig_t, gridDim));
static_assert(offsetof(RuntimeLaunchConfig, block) == offsetof(cudaLaunchConfig_t, blockDim));
static_assert(offsetof(RuntimeLaunchConfig, dynamic_shared_memory) == offsetof(cudaLaunchConfig_t, dynamicSmemBytes));
static_assert(offsetof(RuntimeLaunchConfig, stream) == offsetof(cudaLaunchConfig_t, stream));
static_assert(offsetof(RuntimeLaunchConfig, attribute_count) == offsetof(cudaLaunchConfig_t, numAttrs));
static_assert(sizeof(DriverLaunchConfig) == sizeof(CUlaunchConfig));
static_assert(offsetof(DriverLaunchConfig, grid_z) == offsetof(CUlaunchConfig, gridDimZ));
static_assert(offsetof(DriverLaunchConfig, block_x) == offsetof(CUlaunchConfig, blockDimX));
static_assert(offsetof(DriverLaunchConfig, shared_memory) == offsetof(CUlaunchConfig, sharedMemBytes));
static_assert(offsetof(DriverLaunchConfig, stream) == offsetof(CUlaunchConfig, hStream));
static_assert(offsetof(DriverLaunchConfig, attribute_count) == offsetof(CUlaunchConfig, numAttrs));
static_assert(abi::kRuntimeInitializationError == cudaErrorInitializationError);
static_assert(abi::kDriverNotInitialized == CUDA_ERROR_NOT_INITIALIZED);

TEST(CudaAbi, ConfigurationFieldsReadBackThroughTheMirror) {
  cudaLaunchConfig_t runtime = {};
  runtime.gridDim = dim3(7, 3, 2);
  runtime.blockDim = dim3(32, 8, 1);
  runtime.dynamicSmemBytes = 1024;
  const auto* mirror = reinterpret_cast<const RuntimeLaunchConfig*>(&runtime);
  EXPECT_EQ(mirror->grid.y, 3u);
  EXPECT_EQ(mirror->block.y, 8u);
  EXPECT_EQ(mirror->dynamic_shared_memory, 1024u);
}

}  // namespace
}  // namespace fastci::cuda
