#include "planner/deciding_run.h"

#include <gtest/gtest.h>

#include "evidence/store/store.h"

namespace fastci::planner {
namespace {

using evidence::HistoryEntry;
using evidence::Outcome;

HistoryEntry result(std::int64_t run, std::optional<Outcome> outcome, int gpus) {
  HistoryEntry h;
  h.test_id = "t";
  h.run_id = run;
  h.commit = "c" + std::to_string(run) + "0123456789abcdef";
  h.outcome = outcome;
  h.gpus = gpus;
  return h;
}

std::vector<CoverageRun> runs(std::initializer_list<std::int64_t> ids) {
  std::vector<CoverageRun> out;
  for (auto id : ids) out.push_back({id, "c" + std::to_string(id) + "0123456789abcdef"});
  return out;
}

TEST(DecidingRun, TheLatestPassingRunAtFullSizeDecides) {
  auto d = choose_deciding_run({result(1, Outcome::passed, 2), result(2, Outcome::passed, 2)}, runs({1, 2}), 2);
  ASSERT_TRUE(d.run);
  EXPECT_EQ(d.run->id, 2);
  EXPECT_EQ(d.run->outcome, "passed");
  EXPECT_EQ(describe(*d.run), "run 2 at c20123456789 (passed, 2 GPUs)");
}

TEST(DecidingRun, AFailedOrErroredRunNeverDecidesAnOlderPassingOneDoes) {
  auto d = choose_deciding_run({result(1, Outcome::passed, 1), result(2, Outcome::error, 1)}, runs({1, 2}), 0);
  ASSERT_TRUE(d.run);
  EXPECT_EQ(d.run->id, 1);
  auto none = choose_deciding_run({result(2, Outcome::failed, 1)}, runs({2}), 0);
  EXPECT_FALSE(none.run);
  EXPECT_EQ(none.why_none, "its latest coverage run, run 2 at c20123456789 (failed, 1 GPU), did not pass (failed)");
}

TEST(DecidingRun, SkippedXfailedAndRunsWithoutOutcomeNeverDecide) {
  for (auto outcome : {Outcome::skipped, Outcome::xfailed, Outcome::unknown}) {
    auto d = choose_deciding_run({result(1, outcome, 0)}, runs({1}), 0);
    EXPECT_FALSE(d.run) << d.why_none;
  }
  auto no_result = choose_deciding_run({}, runs({1}), 0);
  EXPECT_FALSE(no_result.run);
  EXPECT_NE(no_result.why_none.find("recorded no outcome"), std::string::npos) << no_result.why_none;
  auto xpassed = choose_deciding_run({result(1, Outcome::xpassed, 0)}, runs({1}), 0);
  EXPECT_TRUE(xpassed.run);
}

TEST(DecidingRun, ARunAtAnotherSizeNeverDecides) {
  // Recorded at world_size 1 for shrinking: the declared size is 4.
  auto smaller = choose_deciding_run({result(3, Outcome::passed, 1)}, runs({3}), 4);
  EXPECT_FALSE(smaller.run);
  EXPECT_NE(smaller.why_none.find("ran at 1 GPUs, not at the test's full size of 4"), std::string::npos)
      << smaller.why_none;
  // With both sizes recorded, the full-size run decides even when the smaller one is newer.
  auto both = choose_deciding_run({result(2, Outcome::passed, 4), result(3, Outcome::passed, 1)}, runs({2, 3}), 4);
  ASSERT_TRUE(both.run);
  EXPECT_EQ(both.run->id, 2);
  // Undeclared size: the largest size any run recorded is the full one.
  auto undeclared = choose_deciding_run({result(2, Outcome::passed, 2), result(3, Outcome::passed, 1)}, runs({2, 3}), 0);
  ASSERT_TRUE(undeclared.run);
  EXPECT_EQ(undeclared.run->id, 2);
  // 0 and 1 are the same size: one process.
  EXPECT_TRUE(choose_deciding_run({result(1, Outcome::passed, 0)}, runs({1}), 1).run);
}

TEST(DecidingRun, OnlyRunsHoldingCoverageCount) {
  // Run 2 passed but recorded no coverage of the test (a JUnit-only run): it says nothing about lines.
  auto d = choose_deciding_run({result(1, Outcome::passed, 1), result(2, Outcome::passed, 1)}, runs({1}), 0);
  ASSERT_TRUE(d.run);
  EXPECT_EQ(d.run->id, 1);
  EXPECT_EQ(choose_deciding_run({result(1, Outcome::passed, 1)}, {}, 0).why_none, "no run holds its coverage");
}

}  // namespace
}  // namespace fastci::planner
