#pragma once
/// A tiny lock for very short critical sections that can be re-initialised in a forked child.

#include <atomic>

namespace fastci::cuda {

/// Test-and-test-and-set lock; uncontended lock/unlock is one atomic exchange and one store.
class SpinLock {
 public:
  void lock() noexcept {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) __builtin_ia32_pause();
    }
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }
  /// Forgets an owner that no longer exists (the child of fork() has only the forking thread).
  void reset_after_fork() noexcept { locked_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace fastci::cuda
