// Declaration-only stand-in for PyTorch's CUDA helpers (streams, guards, events, handles).
#pragma once
#include "fastci/torch_stub.h"
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define FASTCI_STUB_HAS_CUDA 1
#else
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef int cudaError_t;
struct cudaDeviceProp { int multiProcessorCount; int major; int minor; size_t sharedMemPerBlock; int maxThreadsPerBlock; };
#endif
#if __has_include(<cublas_v2.h>)
#include <cublas_v2.h>
#else
typedef struct cublasContext* cublasHandle_t;
#endif

namespace c10::cuda {
class CUDAStream {
 public:
  explicit CUDAStream(c10::Device device);
  cudaStream_t stream() const;
  operator cudaStream_t() const;
  c10::Device device() const;
  c10::DeviceIndex device_index() const;
  int64_t id() const;
  bool query() const;
  void synchronize() const;
  bool operator==(const CUDAStream& other) const;
  bool operator!=(const CUDAStream& other) const;
};
CUDAStream getCurrentCUDAStream(c10::DeviceIndex device = -1);
CUDAStream getDefaultCUDAStream(c10::DeviceIndex device = -1);
CUDAStream getStreamFromPool(bool high_priority = false, c10::DeviceIndex device = -1);
CUDAStream getStreamFromExternal(cudaStream_t stream, c10::DeviceIndex device);
void setCurrentCUDAStream(CUDAStream stream);
c10::DeviceIndex current_device();
c10::DeviceIndex device_count();
void set_device(c10::DeviceIndex device);
void device_synchronize();
void stream_synchronize(cudaStream_t stream);
struct CUDAGuard { explicit CUDAGuard(c10::DeviceIndex device); explicit CUDAGuard(c10::Device device); };
struct OptionalCUDAGuard {
  OptionalCUDAGuard();
  explicit OptionalCUDAGuard(c10::Device device);
  explicit OptionalCUDAGuard(std::optional<c10::Device> device);
  explicit OptionalCUDAGuard(c10::DeviceIndex device);
  void set_device(c10::Device device);
};
struct CUDAStreamGuard { explicit CUDAStreamGuard(CUDAStream stream); };
struct OptionalCUDAStreamGuard { explicit OptionalCUDAStreamGuard(CUDAStream stream); };
void c10_cuda_check_implementation(int error, const char* file, const char* function, int line, bool assertion);
}  // namespace c10::cuda
// In namespace at as in ATen/DeviceGuard.h: extensions call it unqualified and find it by ADL.
namespace at {
std::optional<Device> device_of(const Tensor& t);
}

namespace at::cuda {
using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool;
using c10::cuda::getStreamFromExternal;
using c10::cuda::setCurrentCUDAStream;
using c10::cuda::stream_synchronize;
using c10::cuda::CUDAGuard;
using c10::cuda::OptionalCUDAGuard;
using c10::cuda::CUDAStreamGuard;
using c10::cuda::OptionalCUDAStreamGuard;
cudaDeviceProp* getCurrentDeviceProperties();
cudaDeviceProp* getDeviceProperties(int64_t device);
cublasHandle_t getCurrentCUDABlasHandle();
int warp_size();
bool is_available();
c10::DeviceIndex current_device();
class CUDAEvent {
 public:
  CUDAEvent();
  explicit CUDAEvent(unsigned int flags);
  void record();
  void record(const CUDAStream& stream);
  void block(const CUDAStream& stream);
  bool query() const;
  void synchronize() const;
  float elapsed_time(const CUDAEvent& other) const;
  cudaEvent_t event() const;
  operator cudaEvent_t() const;
};
namespace detail {
template <typename T, typename IndexType> struct TensorInfo { T* data; IndexType sizes[25]; IndexType strides[25]; int dims; };
template <typename T, typename IndexType> TensorInfo<T, IndexType> getTensorInfo(const at::Tensor& t);
bool canUse32BitIndexMath(const at::Tensor& t, int64_t max_elem = 2147483647);
}  // namespace detail
}  // namespace at::cuda

#define C10_CUDA_CHECK(expr) ::c10::cuda::c10_cuda_check_implementation(static_cast<int>(expr), __FILE__, __func__, __LINE__, true)
#define C10_CUDA_CHECK_WARN(expr) C10_CUDA_CHECK(expr)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(0)
#define AT_CUDA_CHECK(expr) C10_CUDA_CHECK(expr)
#define TORCH_CUDABLAS_CHECK(expr) C10_CUDA_CHECK(expr)
#define C10_CUDA_IGNORE_ERROR(expr) C10_CUDA_CHECK(expr)
