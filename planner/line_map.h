#pragma once
/// Carries line ranges of a file between commits through the diff: evidence recorded at an older
/// commit is used only where the lines are unchanged; changed lines are stale (unknown).

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "planner/git_repository.h"

namespace fastci::planner {

/// Inclusive 1-based line range.
using Lines = std::pair<int, int>;

/// Maps a range at one commit to the same lines at another, per the hunks between them.
/// `hunks` are (old_start, old_count, new_start, new_count) from old -> new; the range is on the
/// new side. Returns nullopt when any line of the range (or a deletion inside it) changed.
std::optional<Lines> map_to_old_side(const std::vector<std::array<int, 4>>& hunks, Lines range);

/// Caches per-file diffs between an evidence commit and the analysed base.
class LineMapper {
 public:
  LineMapper(const GitRepository& repo, std::string base) : repo_(repo), base_(std::move(base)) {}
  /// `range` of `path` at base, as lines at `evidence_commit`; nullopt when stale or unknown.
  std::optional<Lines> to_evidence_commit(const std::string& path, Lines range,
                                          const std::string& evidence_commit);

 private:
  const GitRepository& repo_;
  std::string base_;
  std::map<std::pair<std::string, std::string>, std::optional<FileDiff>> diffs_;
};

}  // namespace fastci::planner
