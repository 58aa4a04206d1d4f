#pragma once
/// Counting kernel launches per (test, kernel, grid, block, shared memory) on the launch path.

#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuda/abi.h"
#include "cuda/spin_lock.h"

namespace fastci::cuda {

/// One distinct launch: what evidence keeps apart.
struct LaunchKey {
  std::uint32_t test = 0;    ///< CurrentTest index
  std::uint32_t kernel = 0;  ///< KernelRegistry index
  abi::Dim3 grid;
  abi::Dim3 block;
  std::uint64_t shared_memory = 0;

  bool operator==(const LaunchKey& other) const noexcept;
};

/// Hash of a LaunchKey.
struct LaunchKeyHash {
  std::size_t operator()(const LaunchKey& key) const noexcept;
};

/// What was counted for one key.
struct LaunchTotals {
  std::uint64_t count = 0;
  double duration_us = 0;  ///< summed kernel durations; 0 when the source has no timing
};

/// Launch counts, sharded per thread. A thread adds to its own shard without any atomic read-modify-write
/// or lock when the key was counted recently; a new key takes the shard's lock (shared only with
/// snapshot()), so launches from many threads never wait on each other.
class LaunchTable {
 public:
  LaunchTable();
  LaunchTable(const LaunchTable&) = delete;
  LaunchTable& operator=(const LaunchTable&) = delete;

  /// Counts `count` launches of `key`.
  void add(const LaunchKey& key, std::uint64_t count = 1, double duration_us = 0) noexcept;
  /// Counts one launch configuration (__cudaPushCallConfiguration) on the calling thread's shard.
  void add_configured() noexcept;
  /// Launch configurations counted over all threads.
  std::uint64_t configured() const;
  /// Totals summed over all threads (threads may keep adding meanwhile).
  std::vector<std::pair<LaunchKey, LaunchTotals>> snapshot() const;
  /// Total launches counted.
  std::uint64_t total() const;
  /// Forgets the parent's counts and lock owners in a forked child.
  void reset_after_fork() noexcept;

 private:
  /// Recently counted keys of one shard, so that a launch loop skips the hash map.
  /// Totals a snapshot may read while the owning thread writes them (owner-only stores, no RMW).
  struct SharedTotals {
    std::atomic<std::uint64_t> count{0};
    std::atomic<double> duration_us{0};
  };
  struct RecentSlot {
    LaunchKey key;
    SharedTotals* totals = nullptr;  // node of Shard::totals (unordered_map nodes never move)
  };
  struct Shard {
    SpinLock lock;  // guards the map's structure (insertions against snapshot iteration)
    std::unordered_map<LaunchKey, SharedTotals, LaunchKeyHash> totals;
    RecentSlot recent[16];
    std::atomic<std::uint64_t> configured{0};  // written by the owning thread only
  };
  Shard* shard_for_this_thread();

  const std::uint64_t id_;
  std::atomic<std::uint64_t> generation_{0};
  mutable SpinLock shards_lock_;
  std::vector<Shard*> shards_;  // never freed: a thread's counts outlive the thread
};

}  // namespace fastci::cuda
