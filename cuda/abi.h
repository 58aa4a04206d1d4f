#pragma once
/// Mirrors of the few CUDA runtime and driver ABI types the collectors read, so that the launch
/// interposer builds with a plain C++ compiler and links no CUDA library. abi_test.cc checks the
/// layouts against the toolkit headers.

#include <cstddef>
#include <cstdint>

namespace fastci::cuda::abi {

/// dim3 / uint3: three unsigned extents, passed by value in registers like the real type.
struct Dim3 {
  unsigned int x = 1;
  unsigned int y = 1;
  unsigned int z = 1;
};

/// cudaLaunchConfig_t (cudaLaunchKernelExC).
struct RuntimeLaunchConfig {
  Dim3 grid;
  Dim3 block;
  std::size_t dynamic_shared_memory;
  void* stream;
  void* attributes;
  unsigned int attribute_count;
};

/// CUlaunchConfig (cuLaunchKernelEx).
struct DriverLaunchConfig {
  unsigned int grid_x, grid_y, grid_z;
  unsigned int block_x, block_y, block_z;
  unsigned int shared_memory;
  void* stream;
  void* attributes;
  unsigned int attribute_count;
};

/// cudaError_t / CUresult values the interposer returns itself (only when the real function is missing).
inline constexpr int kRuntimeInitializationError = 3;  // cudaErrorInitializationError
inline constexpr int kDriverNotInitialized = 3;         // CUDA_ERROR_NOT_INITIALIZED

}  // namespace fastci::cuda::abi
