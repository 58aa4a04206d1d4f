// Force-included for .cu sources when no CUDA toolkit is installed: the CUDA keywords and the
// few runtime types kernels and launches need, so definitions keep their shape.
#pragma once
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef int cudaError_t;
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
struct uint3 { unsigned x, y, z; };
extern "C" int cudaConfigureCall(dim3 grid, dim3 block, unsigned long shared = 0, cudaStream_t stream = 0);
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, unsigned long shared = 0, void* stream = 0);
extern const uint3 threadIdx, blockIdx;
extern const dim3 blockDim, gridDim;
extern const int warpSize;
struct __half { unsigned short x; };
struct __nv_bfloat16 { unsigned short x; };
__device__ void __syncthreads();
cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, unsigned long shared, cudaStream_t stream);
cudaError_t cudaGetLastError();
