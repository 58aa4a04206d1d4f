#include "planner/deciding_run.h"

#include <algorithm>
#include <map>

#include "evidence/store/store.h"

namespace fastci::planner {
namespace {

using evidence::Outcome;

const char* outcome_text(const std::optional<Outcome>& outcome) {
  return outcome ? evidence::to_string(*outcome) : "no outcome";
}

/// xpassed ran the whole test body without an error, as passed did; nothing else did.
bool completed(const std::optional<Outcome>& outcome) {
  return outcome && (*outcome == Outcome::passed || *outcome == Outcome::xpassed);
}

int size_of(int gpus) { return std::max(gpus, 1); }

std::string rejected(const EvidenceRun& run, const std::string& why) {
  return "its latest coverage run, " + describe(run) + ", " + why;
}

}  // namespace

std::string describe(const EvidenceRun& run) {
  std::string text = "run " + std::to_string(run.id) + " at " + run.commit.substr(0, 12) + " (" + run.outcome;
  if (run.gpus > 0) text += ", " + std::to_string(run.gpus) + (run.gpus == 1 ? " GPU" : " GPUs");
  return text + ")";
}

DecidingRun choose_deciding_run(const std::vector<evidence::HistoryEntry>& history,
                                const std::vector<CoverageRun>& coverage_runs, int full_gpus) {
  std::map<std::int64_t, const evidence::HistoryEntry*> results;
  int largest = 0;
  for (const auto& h : history) {
    results[h.run_id] = &h;
    largest = std::max(largest, h.gpus);
  }
  int full = full_gpus > 0 ? full_gpus : largest;

  std::vector<CoverageRun> newest_first = coverage_runs;
  // Run ids grow with ingest order, which is the order the store knows runs in.
  std::sort(newest_first.begin(), newest_first.end(),
            [](const CoverageRun& a, const CoverageRun& b) { return a.id > b.id; });
  DecidingRun out;
  for (const auto& c : newest_first) {
    auto it = results.find(c.id);
    const evidence::HistoryEntry* result = it == results.end() ? nullptr : it->second;
    EvidenceRun run{c.id, c.commit, outcome_text(result ? result->outcome : std::nullopt), result ? result->gpus : 0};
    std::string why;
    if (!result || !result->outcome)
      why = "recorded no outcome (coverage without a test result: ingest the run's JUnit report with the same run name)";
    else if (!completed(result->outcome))
      why = std::string("did not pass (") + run.outcome + ")";
    else if (size_of(result->gpus) != size_of(full))
      why = "ran at " + std::to_string(size_of(result->gpus)) + " GPUs, not at the test's full size of " +
            std::to_string(size_of(full));
    if (why.empty()) {
      out.run = std::move(run);
      out.why_none.clear();
      return out;
    }
    if (out.why_none.empty()) out.why_none = rejected(run, why);
  }
  if (out.why_none.empty()) out.why_none = "no run holds its coverage";
  return out;
}

}  // namespace fastci::planner
