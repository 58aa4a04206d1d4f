#pragma once
/// Retention of the evidence store: which runs `fastci evidence gc` deletes.

#include <cstdint>
#include <ctime>
#include <optional>
#include <vector>

#include "evidence/store/store.h"

namespace fastci::evidence {

/// What to keep: the newest `keep_runs` runs, and/or runs ingested less than `older_than_days` ago.
/// A run is deleted when either limit says so; with neither set, nothing is.
struct RetentionPolicy {
  std::optional<std::int64_t> keep_runs;
  std::optional<double> older_than_days;
};

/// The runs the policy deletes, oldest first. `now` is seconds since the epoch; a run whose
/// ingested_at cannot be read is kept (it is never guessed old).
std::vector<std::int64_t> runs_to_delete(const std::vector<RunInfo>& runs, const RetentionPolicy& policy,
                                         std::time_t now);

/// What a garbage collection did (or, dry, would do).
struct GcResult {
  std::vector<std::int64_t> deleted;  ///< run ids, oldest first
  std::size_t runs = 0;               ///< runs in the store before
};

/// Deletes what the policy says, each run in its own transaction; with `dry_run`, only says which.
util::Result<GcResult> collect_garbage(Store& store, const RetentionPolicy& policy, std::time_t now,
                                       bool dry_run = false);

}  // namespace fastci::evidence
