#include "planner/test_history.h"

namespace fastci::planner {

util::Result<std::vector<HistoryPoint>> history_points(const std::string& test_id, const std::vector<OutcomeAt>& runs,
                                                       const std::set<std::string>& changed_files,
                                                       ReachedCode& reached) {
  std::vector<HistoryPoint> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    HistoryPoint p;
    p.failed = runs[i].failed;
    if (i > 0) {
      auto code = reached.changed(test_id, runs[i - 1].commit, runs[i].commit);
      if (!code.ok()) return code.error();
      p.code_changed = *code;
      // The commits since the previous run are what a failure here came with.
      if (const auto& files = reached.files_changed(runs[i - 1].commit, runs[i].commit))
        for (const auto& f : *files)
          if (changed_files.count(f)) {
            p.touched_changed_files = true;
            break;
          }
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace fastci::planner
