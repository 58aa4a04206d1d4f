#include "planner/line_map.h"

namespace fastci::planner {

std::optional<Lines> map_to_old_side(const std::vector<std::array<int, 4>>& hunks, Lines range) {
  auto [first, last] = range;
  int offset_first = 0, offset_last = 0;
  for (const auto& [old_start, old_count, new_start, new_count] : hunks) {
    if (new_count > 0) {
      int new_end = new_start + new_count - 1;
      if (new_start <= last && new_end >= first) return std::nullopt;  // a changed line inside
      if (new_end < first) offset_first += old_count - new_count;
      if (new_end < last) offset_last += old_count - new_count;
    } else {
      // A pure deletion sits after line new_start of the new side.
      if (new_start >= first && new_start < last) return std::nullopt;
      if (new_start < first) offset_first += old_count;
      if (new_start < last) offset_last += old_count;
    }
  }
  return Lines{first + offset_first, last + offset_last};
}

std::optional<Lines> LineMapper::to_evidence_commit(const std::string& path, Lines range,
                                                    const std::string& evidence_commit) {
  if (evidence_commit.empty()) return std::nullopt;  // unknown commit: cannot tell stale lines
  if (evidence_commit == base_) return range;
  auto key = std::make_pair(path, evidence_commit);
  auto it = diffs_.find(key);
  if (it == diffs_.end()) {
    auto diff = repo_.diff_file(evidence_commit, base_, path);
    std::optional<FileDiff> stored;
    if (diff.ok() && diff->status != FileStatus::added && !diff->binary) stored = std::move(*diff);
    it = diffs_.emplace(key, std::move(stored)).first;
  }
  if (!it->second) return std::nullopt;
  return map_to_old_side(it->second->hunks, range);
}

}  // namespace fastci::planner
