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
thread_local ThreadShard thread_shard;

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
    std::lock_guard guard(shard->lock);
    LaunchTotals& totals = shard->totals[key];
    totals.count += count;
    totals.duration_us += duration_us;
  } catch (...) {
    // Out of memory: this launch goes uncounted; the program goes on.
  }
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
      sum.count += totals.count;
      sum.duration_us += totals.duration_us;
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
