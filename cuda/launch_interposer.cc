/// libfastci_launch.so: an LD_PRELOAD library that counts the kernel launches of a program linked with
/// the shared CUDA runtime, per test, and writes them as fastci evidence JSONL at exit.
/// It links no CUDA library: every hook forwards to the real function found at first use.

#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "cuda/abi.h"
#include "cuda/current_test.h"
#include "cuda/evidence_writer.h"
#include "cuda/kernel_registry.h"
#include "cuda/launch_table.h"
#include "cuda/real_function.h"

namespace fastci::cuda {
namespace {

constexpr const char* kCollector = "libfastci_launch 0.1";
constexpr const char* kRuntimeLibrary = "libcudart.so";
constexpr const char* kDriverLibrary = "libcuda.so";

/// Everything the hooks share. Created at first use (hooks can run inside other libraries'
/// constructors, before ours) and never destroyed (flushing runs during exit).
struct Collector {
  CurrentTest tests{CurrentTestOptions::from_environment()};
  KernelRegistry kernels;
  LaunchTable launches;
  std::string directory;
  std::string started_at = iso8601_utc_now();
  std::atomic<long> owner_pid{0};
  SpinLock flush_lock;
  bool warned_no_directory = false;
  bool warned_write = false;
};

std::atomic<Collector*> the_collector{nullptr};

void flush() noexcept;
void flush_at_exit() { flush(); }

void reset_in_child() {
  Collector* collector = the_collector.load();
  if (!collector) return;
  collector->flush_lock.reset_after_fork();
  collector->tests.reset_after_fork();
  collector->kernels.reset_after_fork();
  collector->launches.reset_after_fork();
  collector->owner_pid.store(::getpid());
  collector->started_at = iso8601_utc_now();
}

Collector* create_collector() {
  auto* collector = new Collector;
  if (const char* directory = std::getenv("FASTCI_EVIDENCE_DIR")) collector->directory = directory;
  collector->owner_pid.store(::getpid());
  std::atexit(flush_at_exit);
  pthread_atfork(nullptr, nullptr, reset_in_child);
  return collector;
}

Collector& collector() {
  static Collector* instance = [] {
    Collector* created = create_collector();
    the_collector.store(created);
    return created;
  }();
  return *instance;
}

/// Depth of hook calls on this thread: a real function that calls another hooked entry point through
/// the PLT must not count its launch twice.
thread_local int hook_depth __attribute__((tls_model("initial-exec"))) = 0;

struct HookScope {
  HookScope() { ++hook_depth; }
  ~HookScope() { --hook_depth; }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;
  bool outermost() const { return hook_depth == 1; }
};

/// The real function behind a hook, resolved once; reports once on stderr when it cannot be found.
template <typename Function>
Function real(std::atomic<void*>& cache, const char* name, const char* library) noexcept {
  void* address = cache.load(std::memory_order_acquire);
  if (!address) {
    address = find_real_function(name, library);
    if (!address) {
      std::fprintf(stderr, "fastci launch: %s not found in any loaded %s*\n", name, library);
      return nullptr;
    }
    cache.store(address, std::memory_order_release);
  }
  return reinterpret_cast<Function>(address);
}

std::string pointer_name(const char* what, const void* pointer) {
  char text[64];
  std::snprintf(text, sizeof text, "%s %p", what, pointer);
  return text;
}

void record(const void* kernel_pointer, abi::Dim3 grid, abi::Dim3 block, std::uint64_t shared_memory) noexcept {
  Collector& state = collector();
  std::uint32_t kernel = state.kernels.find(kernel_pointer);
  if (kernel == KernelRegistry::kUnknown) {
    kernel = state.kernels.name_pointer(kernel_pointer, pointer_name("unregistered kernel", kernel_pointer));
  }
  if (kernel == KernelRegistry::kUnknown) return;
  state.launches.add(LaunchKey{state.tests.current(), kernel, grid, block, shared_memory});
}

using GetNameFunction = int (*)(const char**, void*);

void record_driver(void* function, abi::Dim3 grid, abi::Dim3 block, std::uint64_t shared_memory) noexcept {
  Collector& state = collector();
  if (state.kernels.find(function) == KernelRegistry::kUnknown) {
    // cuFuncGetName exists from CUDA 12.3; without it (or a driver) the CUfunction address names it.
    const char* name = nullptr;
    void* address = find_real_function("cuFuncGetName", kDriverLibrary);
    auto get_name = reinterpret_cast<GetNameFunction>(address);
    if (!get_name || get_name(&name, function) != 0 || !name) name = nullptr;
    state.kernels.name_pointer(function, name ? std::string(name) : pointer_name("CUfunction", function));
  }
  record(function, grid, block, shared_memory);
}

void flush() noexcept {
  Collector* state = the_collector.load();
  if (!state || state->owner_pid.load() != ::getpid()) return;  // vfork child: the parent's table
  try {
    std::lock_guard guard(state->flush_lock);
    auto launches = state->launches.snapshot();
    if (launches.empty() && state->kernels.registered_count() == 0) return;  // not a CUDA program
    if (state->directory.empty()) {
      if (!state->warned_no_directory && !launches.empty()) {
        std::fprintf(stderr, "fastci launch: FASTCI_EVIDENCE_DIR is not set; %zu launch records not written\n",
                     launches.size());
      }
      state->warned_no_directory = true;
      return;
    }
    std::uint64_t recorded = 0;
    for (const auto& entry : launches) recorded += entry.second.count;
    RunInfo run = describe_process(kCollector, state->started_at);
    run.environment.emplace_back("registered_kernels", std::to_string(state->kernels.registered_count()));
    run.environment.emplace_back("configured_launches", std::to_string(state->launches.configured()));
    run.environment.emplace_back("recorded_launches", std::to_string(recorded));
    auto records = kernel_records(launches, state->tests.names(), state->kernels.names(), false);
    make_directories(state->directory);
    util::Status status = write_file_atomically(evidence_path(state->directory, "launch", ::getpid()),
                                                format_evidence(run, records));
    if (!status && !state->warned_write) {
      std::fprintf(stderr, "fastci launch: %s\n", status.error().to_string().c_str());
      state->warned_write = true;
    }
  } catch (...) {
    // Never let evidence collection take the program down at exit.
  }
}

__attribute__((destructor)) void flush_on_unload() { flush(); }

abi::Dim3 dims(unsigned x, unsigned y, unsigned z) { return abi::Dim3{x, y, z}; }

}  // namespace
}  // namespace fastci::cuda

using fastci::cuda::HookScope;
using fastci::cuda::real;
using fastci::cuda::abi::Dim3;
using fastci::cuda::abi::DriverLaunchConfig;
using fastci::cuda::abi::RuntimeLaunchConfig;
namespace abi = fastci::cuda::abi;

#define FASTCI_REAL(type, name, library)                              \
  static std::atomic<void*> real_address{nullptr};                    \
  auto real_##name = real<type>(real_address, #name, library)

extern "C" {

__attribute__((visibility("default"))) void __cudaRegisterFunction(void** fat_binary, const char* host_function,
                                                                   char* device_function, const char* device_name,
                                                                   int thread_limit, void* thread_id, void* block_id,
                                                                   void* block_dim, void* grid_dim, int* warp_size) {
  using Function = void (*)(void**, const char*, char*, const char*, int, void*, void*, void*, void*, int*);
  FASTCI_REAL(Function, __cudaRegisterFunction, fastci::cuda::kRuntimeLibrary);
  fastci::cuda::collector().kernels.register_function(host_function, device_name);
  if (real___cudaRegisterFunction) {
    real___cudaRegisterFunction(fat_binary, host_function, device_function, device_name, thread_limit, thread_id,
                                block_id, block_dim, grid_dim, warp_size);
  }
}

__attribute__((visibility("default"))) unsigned __cudaPushCallConfiguration(Dim3 grid, Dim3 block,
                                                                            size_t shared_memory, void* stream) {
  using Function = unsigned (*)(Dim3, Dim3, size_t, void*);
  FASTCI_REAL(Function, __cudaPushCallConfiguration, fastci::cuda::kRuntimeLibrary);
  // The launch call carries the same configuration; this count tells launches configured apart from
  // launches seen (a gap means launches through a path not hooked).
  fastci::cuda::collector().launches.add_configured();
  if (!real___cudaPushCallConfiguration) return 1;
  return real___cudaPushCallConfiguration(grid, block, shared_memory, stream);
}

__attribute__((visibility("default"))) int __cudaGetKernel(void** kernel, const void* host_function) {
  using Function = int (*)(void**, const void*);
  FASTCI_REAL(Function, __cudaGetKernel, fastci::cuda::kRuntimeLibrary);
  if (!real___cudaGetKernel) return abi::kRuntimeInitializationError;
  int result = real___cudaGetKernel(kernel, host_function);
  if (kernel && *kernel) fastci::cuda::collector().kernels.alias(*kernel, host_function);
  return result;
}

__attribute__((visibility("default"))) int cudaGetKernel(void** kernel, const void* host_function) {
  using Function = int (*)(void**, const void*);
  FASTCI_REAL(Function, cudaGetKernel, fastci::cuda::kRuntimeLibrary);
  if (!real_cudaGetKernel) return abi::kRuntimeInitializationError;
  int result = real_cudaGetKernel(kernel, host_function);
  if (result == 0 && kernel && *kernel) fastci::cuda::collector().kernels.alias(*kernel, host_function);
  return result;
}

// Runtime launches: the kernel is a host stub (cudaLaunchKernel) or a cudaKernel_t handle (<<<>>> in
// CUDA 13, through __cudaLaunchKernel); the registry knows both.
#define FASTCI_RUNTIME_LAUNCH(name)                                                                        \
  __attribute__((visibility("default"))) int name(const void* kernel, Dim3 grid, Dim3 block, void** arguments, \
                                                  size_t shared_memory, void* stream) {                    \
    using Function = int (*)(const void*, Dim3, Dim3, void**, size_t, void*);                              \
    FASTCI_REAL(Function, name, fastci::cuda::kRuntimeLibrary);                                            \
    HookScope scope;                                                                                       \
    if (scope.outermost()) fastci::cuda::record(kernel, grid, block, shared_memory);                       \
    if (!real_##name) return abi::kRuntimeInitializationError;                                             \
    return real_##name(kernel, grid, block, arguments, shared_memory, stream);                             \
  }

FASTCI_RUNTIME_LAUNCH(__cudaLaunchKernel)
FASTCI_RUNTIME_LAUNCH(__cudaLaunchKernel_ptsz)
FASTCI_RUNTIME_LAUNCH(cudaLaunchKernel)
FASTCI_RUNTIME_LAUNCH(cudaLaunchKernel_ptsz)
FASTCI_RUNTIME_LAUNCH(cudaLaunchCooperativeKernel)
FASTCI_RUNTIME_LAUNCH(cudaLaunchCooperativeKernel_ptsz)

#define FASTCI_RUNTIME_LAUNCH_EX(name)                                                                    \
  __attribute__((visibility("default"))) int name(const RuntimeLaunchConfig* config, const void* kernel,  \
                                                  void** arguments) {                                     \
    using Function = int (*)(const RuntimeLaunchConfig*, const void*, void**);                            \
    FASTCI_REAL(Function, name, fastci::cuda::kRuntimeLibrary);                                           \
    HookScope scope;                                                                                      \
    if (scope.outermost() && config) {                                                                    \
      fastci::cuda::record(kernel, config->grid, config->block, config->dynamic_shared_memory);           \
    }                                                                                                     \
    if (!real_##name) return abi::kRuntimeInitializationError;                                            \
    return real_##name(config, kernel, arguments);                                                        \
  }

FASTCI_RUNTIME_LAUNCH_EX(cudaLaunchKernelExC)
FASTCI_RUNTIME_LAUNCH_EX(cudaLaunchKernelExC_ptsz)

// Driver launches: only direct driver-API callers reach these (libcudart gets its driver entry
// points through cuGetProcAddress, so runtime launches are not counted twice).
#define FASTCI_DRIVER_LAUNCH(name)                                                                              \
  __attribute__((visibility("default"))) int name(void* function, unsigned grid_x, unsigned grid_y,            \
                                                  unsigned grid_z, unsigned block_x, unsigned block_y,          \
                                                  unsigned block_z, unsigned shared_memory, void* stream,       \
                                                  void** parameters, void** extra) {                            \
    using Function = int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, \
                             void**, void**);                                                                   \
    FASTCI_REAL(Function, name, fastci::cuda::kDriverLibrary);                                                  \
    HookScope scope;                                                                                            \
    if (scope.outermost()) {                                                                                    \
      fastci::cuda::record_driver(function, fastci::cuda::dims(grid_x, grid_y, grid_z),                         \
                                  fastci::cuda::dims(block_x, block_y, block_z), shared_memory);                \
    }                                                                                                           \
    if (!real_##name) return abi::kDriverNotInitialized;                                                        \
    return real_##name(function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_memory, stream,      \
                       parameters, extra);                                                                      \
  }

FASTCI_DRIVER_LAUNCH(cuLaunchKernel)
FASTCI_DRIVER_LAUNCH(cuLaunchKernel_ptsz)

#define FASTCI_DRIVER_LAUNCH_EX(name)                                                                          \
  __attribute__((visibility("default"))) int name(const DriverLaunchConfig* config, void* function,           \
                                                  void** parameters, void** extra) {                          \
    using Function = int (*)(const DriverLaunchConfig*, void*, void**, void**);                                \
    FASTCI_REAL(Function, name, fastci::cuda::kDriverLibrary);                                                 \
    HookScope scope;                                                                                           \
    if (scope.outermost() && config) {                                                                         \
      fastci::cuda::record_driver(function, fastci::cuda::dims(config->grid_x, config->grid_y, config->grid_z), \
                                  fastci::cuda::dims(config->block_x, config->block_y, config->block_z),        \
                                  config->shared_memory);                                                      \
    }                                                                                                          \
    if (!real_##name) return abi::kDriverNotInitialized;                                                       \
    return real_##name(config, function, parameters, extra);                                                   \
  }

FASTCI_DRIVER_LAUNCH_EX(cuLaunchKernelEx)
FASTCI_DRIVER_LAUNCH_EX(cuLaunchKernelEx_ptsz)

/// os._exit() and _exit() skip atexit handlers; flush first (only in the process that owns the counts).
__attribute__((visibility("default"), noreturn)) void _exit(int status) {
  fastci::cuda::flush();
  using Function = void (*)(int);
  static std::atomic<void*> real_address{nullptr};
  void* address = real_address.load();
  if (!address) address = dlsym(RTLD_NEXT, "_exit");
  if (address) {
    real_address.store(address);
    reinterpret_cast<Function>(address)(status);
  }
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status) { _exit(status); }

}  // extern "C"
