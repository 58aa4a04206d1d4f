#include "cuda/kernel_registry.h"

#include <mutex>
#include <new>

namespace fastci::cuda {
namespace {

std::atomic<std::uint64_t> next_registry_id{1};

/// A direct-mapped per-thread cache in front of the registry's locked maps.
struct ThreadCache {
  static constexpr std::size_t kSlots = 512;
  struct Slot {
    const void* pointer = nullptr;
    std::uint32_t kernel = 0;
  };
  std::uint64_t owner = 0;  // registry id and generation mixed; a mismatch empties the cache
  Slot slots[kSlots];

  static std::size_t slot_of(const void* pointer) {
    auto bits = reinterpret_cast<std::uintptr_t>(pointer);
    return (bits ^ (bits >> 9) ^ (bits >> 18)) % kSlots;
  }
};

// initial-exec: a %fs-relative load instead of a __tls_get_addr call per launch; only a pointer, so
// the static TLS a dlopen()ed collector may take stays small.
thread_local ThreadCache* thread_cache __attribute__((tls_model("initial-exec"))) = nullptr;

}  // namespace

KernelRegistry::KernelRegistry() : id_(next_registry_id.fetch_add(1)) {}

void KernelRegistry::register_function(const void* host_function, const char* device_name) noexcept {
  if (!host_function || !device_name) return;
  try {
    std::lock_guard guard(lock_);
    registered_[host_function] = device_name;
    registered_count_.fetch_add(1, std::memory_order_relaxed);
  } catch (...) {
  }
}

void KernelRegistry::alias(const void* handle, const void* host_function) noexcept {
  if (!handle || handle == host_function) return;
  try {
    std::lock_guard guard(lock_);
    aliases_[handle] = host_function;
  } catch (...) {
  }
}

std::uint32_t KernelRegistry::find(const void* pointer) noexcept {
  std::uint64_t owner = id_ << 32 | generation_.load(std::memory_order_relaxed);
  ThreadCache* cache_pointer = thread_cache;
  if (!cache_pointer || cache_pointer->owner != owner) {
    if (!cache_pointer) cache_pointer = thread_cache = new (std::nothrow) ThreadCache;  // freed never: one per thread
    if (!cache_pointer) return resolve_slow(pointer);
    *cache_pointer = ThreadCache{};
    cache_pointer->owner = owner;
  }
  ThreadCache& cache = *cache_pointer;
  ThreadCache::Slot& slot = cache.slots[ThreadCache::slot_of(pointer)];
  if (slot.pointer == pointer && pointer) return slot.kernel;
  std::uint32_t kernel = resolve_slow(pointer);
  if (kernel != kUnknown) slot = {pointer, kernel};
  return kernel;
}

std::uint32_t KernelRegistry::resolve_slow(const void* pointer) noexcept {
  try {
    std::lock_guard guard(lock_);
    if (auto hit = resolved_.find(pointer); hit != resolved_.end()) return hit->second;
    const void* host_function = pointer;
    if (auto alias = aliases_.find(pointer); alias != aliases_.end()) host_function = alias->second;
    auto registration = registered_.find(host_function);
    if (registration == registered_.end()) return kUnknown;
    std::uint32_t kernel = add_kernel_locked(registration->second);
    resolved_[pointer] = kernel;
    return kernel;
  } catch (...) {
    return kUnknown;
  }
}

std::uint32_t KernelRegistry::name_pointer(const void* pointer, std::string_view name) noexcept {
  try {
    std::lock_guard guard(lock_);
    std::uint32_t kernel = add_kernel_locked(name);
    resolved_[pointer] = kernel;
    return kernel;
  } catch (...) {
    return kUnknown;
  }
}

std::uint32_t KernelRegistry::intern_name(std::string_view name) noexcept {
  try {
    std::lock_guard guard(lock_);
    return add_kernel_locked(name);
  } catch (...) {
    return kUnknown;
  }
}

std::uint32_t KernelRegistry::add_kernel_locked(std::string_view name) {
  auto [entry, added] = by_name_.try_emplace(std::string(name), static_cast<std::uint32_t>(names_.size()));
  if (added) names_.push_back(entry->first);
  return entry->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::lock_guard guard(lock_);
  return names_;
}

void KernelRegistry::reset_after_fork() noexcept {
  lock_.reset_after_fork();
  generation_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace fastci::cuda
