#pragma once
/// Which of a test's recorded runs may rule its static paths out. Only the latest complete, passing
/// run at the test's full (declared) size may: a run that failed, errored, was cut short, was
/// skipped or ran at another size (a smaller one recorded for shrinking) executed other code than
/// the run the plan stands for. Such runs may still add a test, never remove one.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fastci::evidence {
struct HistoryEntry;
}

namespace fastci::planner {

/// One recorded run of one test, as the plan names it.
struct EvidenceRun {
  std::int64_t id = 0;
  std::string commit;
  std::string outcome;  ///< "passed", "failed", ...; "no outcome" when the run recorded none
  int gpus = 0;         ///< the size it ran at; 0 when not recorded
};

/// The run that decides for a test, or why none may.
struct DecidingRun {
  std::optional<EvidenceRun> run;
  std::string why_none;  ///< set when `run` is not; names the rejected run and the reason
};

/// A run that holds coverage of the test.
struct CoverageRun {
  std::int64_t id = 0;
  std::string commit;
  bool native = false;  ///< it holds coverage of C/C++/CUDA code too (an extension built with coverage)
};

/// Picks the newest run among `coverage_runs` whose result in `history` (the store's results of
/// the test, any order) passed at `full_gpus` (the declared size; 0 when the test declares none,
/// then the largest size any of its runs recorded).
DecidingRun choose_deciding_run(const std::vector<evidence::HistoryEntry>& history,
                                const std::vector<CoverageRun>& coverage_runs, int full_gpus);

/// "run 12 at 0123456789ab (passed, 2 GPUs)".
std::string describe(const EvidenceRun& run);

}  // namespace fastci::planner
