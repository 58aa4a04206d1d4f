#include "cuda/launch_table.h"

#include <mutex>

namespace fastci::cuda {
namespace {

std::atomic<std::uint64_t> next_table_id{1};

/// The calling thread's shard of the table it last used.
struct ThreadShard {
  std::uint64_t owner = 0;
  void* shard = nullptr;
};
thread_local ThreadShard thread_shard __attribute__((tls_model("initial-exec")));

/// Slot of a key in Shard::recent: a few multiplications, no division.
std::size_t recent_slot(const LaunchKey& key) {
  std::uint64_t mixed = key.kernel * 0x9e3779b1u + key.test * 0x85ebca6bu + key.grid.x * 31u + key.block.x * 7u +
                        key.grid.y + key.shared_memory;
  return (mixed ^ (mixed >> 7)) & 15u;
}

std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
  hash ^= value + 0x9e3779b97f4a7c15ull + (hash << 6) + (hash >> 2);
  return hash;
}

}  // namespace

bool LaunchKey::operator==(const LaunchKey& other) const noexcept {
  return test == other.test && kernel == other.kernel && grid.x == other.grid.x && grid.y == other.grid.y &&
         grid.z == other.grid.z && block.x == other.block.x && block.y == other.block.y &&
         block.z == other.block.z && shared_memory == other.shared_memory;
}

std::size_t LaunchKeyHash::operator()(const LaunchKey& key) const noexcept {
  std::uint64_t hash = static_cast<std::uint64_t>(key.test) << 32 | key.kernel;
  hash = mix(hash, static_cast<std::uint64_t>(key.grid.x) << 32 | key.grid.y);
  hash = mix(hash, static_cast<std::uint64_t>(key.grid.z) << 32 | key.block.x);
  hash = mix(hash, static_cast<std::uint64_t>(key.block.y) << 32 | key.block.z);
  return mix(hash, key.shared_memory);
}

LaunchTable::LaunchTable() : id_(next_table_id.fetch_add(1)) {}

LaunchTable::Shard* LaunchTable::shard_for_this_thread() {
  std::uint64_t owner = id_ << 32 | generation_.load(std::memory_order_relaxed);
  ThreadShard& mine = thread_shard;
  if (mine.owner == owner) return static_cast<Shard*>(mine.shard);
  auto* shard = new Shard;
  {
    std::lock_guard guard(shards_lock_);
    shards_.push_back(shard);
  }
  mine = {owner, shard};
  return shard;
}

void LaunchTable::add(const LaunchKey& key, std::uint64_t count, double duration_us) noexcept {
  try {
    Shard* shard = shard_for_this_thread();
    RecentSlot& slot = shard->recent[recent_slot(key)];
    if (!slot.totals || !(slot.key == key)) {
      std::lock_guard guard(shard->lock);
      slot = {key, &shard->totals[key]};
    }
    SharedTotals& totals = *slot.totals;
    totals.count.store(totals.count.load(std::memory_order_relaxed) + count, std::memory_order_relaxed);
    if (duration_us != 0) {
      totals.duration_us.store(totals.duration_us.load(std::memory_order_relaxed) + duration_us,
                               std::memory_order_relaxed);
    }
  } catch (...) {
    // Out of memory: this launch goes uncounted; the program goes on.
  }
}

void LaunchTable::add_configured() noexcept {
  try {
    Shard* shard = shard_for_this_thread();
    shard->configured.store(shard->configured.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  } catch (...) {
  }
}

std::uint64_t LaunchTable::configured() const {
  std::lock_guard guard(shards_lock_);
  std::uint64_t sum = 0;
  for (const Shard* shard : shards_) sum += shard->configured.load(std::memory_order_relaxed);
  return sum;
}

std::vector<std::pair<LaunchKey, LaunchTotals>> LaunchTable::snapshot() const {
  std::unordered_map<LaunchKey, LaunchTotals, LaunchKeyHash> merged;
  std::vector<Shard*> shards;
  {
    std::lock_guard guard(shards_lock_);
    shards = shards_;
  }
  for (Shard* shard : shards) {
    std::lock_guard guard(shard->lock);
    for (const auto& [key, totals] : shard->totals) {
      LaunchTotals& sum = merged[key];
      sum.count += totals.count.load(std::memory_order_relaxed);
      sum.duration_us += totals.duration_us.load(std::memory_order_relaxed);
    }
  }
  return {merged.begin(), merged.end()};
}

std::uint64_t LaunchTable::total() const {
  std::uint64_t sum = 0;
  for (const auto& [key, totals] : snapshot()) sum += totals.count;
  return sum;
}

void LaunchTable::reset_after_fork() noexcept {
  shards_lock_.reset_after_fork();
  shards_.clear();  // the parent's shards are its evidence, not the child's (leaked, not freed: locks may be held)
  generation_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace fastci::cuda
