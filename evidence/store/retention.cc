#include "evidence/store/retention.h"

#include <algorithm>
#include <cstdio>

namespace fastci::evidence {

namespace {

/// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SSZ", as the stores write ingested_at.
std::optional<std::time_t> parse_utc(const std::string& text) {
  std::tm tm{};
  char zone = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &zone) != 7 ||
      zone != 'Z')
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return timegm(&tm);
}

}  // namespace

std::vector<std::int64_t> runs_to_delete(const std::vector<RunInfo>& runs, const RetentionPolicy& policy,
                                         std::time_t now) {
  // Newest first by id: ids grow with every ingest, on both stores.
  std::vector<const RunInfo*> order;
  for (const auto& r : runs) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const RunInfo* a, const RunInfo* b) { return a->id > b->id; });
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < order.size(); ++i) {
    bool over_count = policy.keep_runs && static_cast<std::int64_t>(i) >= *policy.keep_runs;
    bool too_old = false;
    if (policy.older_than_days)
      if (auto at = parse_utc(order[i]->ingested_at))
        too_old = static_cast<double>(now - *at) > *policy.older_than_days * 86400.0;
    if (over_count || too_old) out.push_back(order[i]->id);
  }
  std::sort(out.begin(), out.end());
  return out;
}

util::Result<GcResult> collect_garbage(Store& store, const RetentionPolicy& policy, std::time_t now, bool dry_run) {
  auto runs = store.runs();
  if (!runs) return runs.error();
  GcResult out{runs_to_delete(*runs, policy, now), runs->size()};
  if (!dry_run)
    for (auto id : out.deleted)
      if (auto status = store.delete_run(id); !status) return status.error();
  return out;
}

}  // namespace fastci::evidence
