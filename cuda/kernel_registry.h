#pragma once
/// Maps the pointers a launch call carries (host stub, cudaKernel_t handle, CUfunction) to kernels.

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cuda/spin_lock.h"

namespace fastci::cuda {

/// Kernel registry. Registration keeps the runtime's name pointer (libraries register tens of thousands
/// of kernels at load); a kernel gets an index and a copied name only when it is first launched.
class KernelRegistry {
 public:
  /// Returned by find() for a pointer nothing registered.
  static constexpr std::uint32_t kUnknown = 0xffffffffu;

  KernelRegistry();

  /// __cudaRegisterFunction: host stub -> mangled device name (the pointer must outlive the module).
  void register_function(const void* host_function, const char* device_name) noexcept;
  /// __cudaGetKernel: a kernel handle now stands for the host stub.
  void alias(const void* handle, const void* host_function) noexcept;
  /// Kernel index of a launched pointer (stub, handle or named pointer), or kUnknown. Lock-free when
  /// the calling thread has seen the pointer recently.
  std::uint32_t find(const void* pointer) noexcept;
  /// Gives a pointer a name of its own (driver functions, unregistered pointers); returns its index.
  std::uint32_t name_pointer(const void* pointer, std::string_view name) noexcept;
  /// Index of a kernel known only by name (CUPTI records).
  std::uint32_t intern_name(std::string_view name) noexcept;
  /// Mangled (as registered) names by index.
  std::vector<std::string> names() const;
  /// How many host stubs were registered.
  std::uint64_t registered_count() const noexcept { return registered_count_.load(std::memory_order_relaxed); }
  /// Drops lock ownership and per-thread caches inherited through fork().
  void reset_after_fork() noexcept;

 private:
  std::uint32_t resolve_slow(const void* pointer) noexcept;
  std::uint32_t add_kernel_locked(std::string_view name);

  const std::uint64_t id_;  // tells per-thread caches of different registries apart
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::uint64_t> registered_count_{0};
  mutable SpinLock lock_;
  std::unordered_map<const void*, const char*> registered_;     // host stub -> runtime's name
  std::unordered_map<const void*, const void*> aliases_;        // handle -> host stub
  std::unordered_map<const void*, std::uint32_t> resolved_;     // launched pointer -> index
  std::unordered_map<std::string, std::uint32_t> by_name_;      // name -> index
  std::vector<std::string> names_;
};

}  // namespace fastci::cuda
