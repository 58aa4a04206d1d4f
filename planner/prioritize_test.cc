#include "planner/prioritize.h"

#include <gtest/gtest.h>

namespace fastci::planner {
namespace {

SelectedTest selected(const std::string& id, int distance) {
  SelectedTest s;
  s.test.id = id;
  s.test.gpus = 1;
  s.distance = distance;
  return s;
}

std::vector<std::string> order_of(const Prioritized& p) {
  std::vector<std::string> ids;
  for (const auto& e : p.ordered) ids.push_back(e.selected.test.id);
  return ids;
}

/// Three tests of equal cost; "broken" failed in every recorded run, so its history scores it first.
struct Fixture {
  Selection selection;
  std::map<std::string, TestEvidenceSummary> evidence;
  CostTable costs;
  Fixture() {
    selection.selected = {selected("near", 0), selected("broken", 2), selected("far", 3)};
    for (const char* id : {"near", "broken", "far"}) costs.seconds[id] = 10;
    auto& broken = evidence["broken"];
    broken.has_evidence = true;
    broken.seconds = 10;
    broken.recent_failures = {true, true, true, true};
  }
};

TEST(Prioritize, AKnownFailingTestIsRankedLastWhateverItsRisk) {
  Fixture f;
  PrioritizeOptions options;
  options.prune = PruneMode::off;
  auto unclassified = prioritize(f.selection, {}, f.evidence, f.costs, 10, options);
  ASSERT_EQ(order_of(unclassified), (std::vector<std::string>{"broken", "near", "far"}));

  std::map<std::string, FailureClassification> classes{
      {"broken", {FailureClass::known_failing, "failed in the run of the base c2"}}};
  options.failure_classes = &classes;
  auto classified = prioritize(f.selection, {}, f.evidence, f.costs, 10, options);
  EXPECT_EQ(order_of(classified), (std::vector<std::string>{"near", "far", "broken"}));
  EXPECT_EQ(classified.ordered.back().failure_class.kind, FailureClass::known_failing);
  EXPECT_EQ(classified.ordered.back().failure_class.evidence, "failed in the run of the base c2");
  EXPECT_EQ(classified.ordered.front().failure_class.kind, FailureClass::none);
}

TEST(Prioritize, DiscoveryOrderKeepsClassifiedTestsInPlace) {
  // Without risk ordering the plan is in discovery order: the lane is part of risk ordering.
  Fixture f;
  PrioritizeOptions options;
  options.prune = PruneMode::off;
  options.order_by_risk = false;
  std::map<std::string, FailureClassification> classes{{"near", {FailureClass::flaky, "failed and passed at c1"}}};
  options.failure_classes = &classes;
  auto p = prioritize(f.selection, {}, f.evidence, f.costs, 10, options);
  EXPECT_EQ(order_of(p), (std::vector<std::string>{"near", "broken", "far"}));
  EXPECT_EQ(p.ordered.front().failure_class.kind, FailureClass::flaky);
}

TEST(Prioritize, QuarantineLeavesClassifiedTestsOutButCountsThemInRunAll) {
  Fixture f;
  PrioritizeOptions options;
  options.prune = PruneMode::off;
  std::map<std::string, FailureClassification> classes{
      {"broken", {FailureClass::known_failing, "failed in the run of the base c2"}}};
  options.failure_classes = &classes;
  auto lane = prioritize(f.selection, {}, f.evidence, f.costs, 10, options);
  options.quarantine = true;
  auto quarantined = prioritize(f.selection, {}, f.evidence, f.costs, 10, options);
  EXPECT_EQ(order_of(quarantined), (std::vector<std::string>{"near", "far"}));
  ASSERT_EQ(quarantined.quarantined.size(), 1u);
  EXPECT_EQ(quarantined.quarantined[0].test.id, "broken");
  EXPECT_EQ(quarantined.quarantined[0].reason, "quarantined, known-failing: failed in the run of the base c2");
  // Running everything still costs the quarantined test; the plan does not.
  EXPECT_DOUBLE_EQ(quarantined.prediction.all_gpu_hours, lane.prediction.all_gpu_hours);
  EXPECT_LT(quarantined.prediction.plan_gpu_hours, lane.prediction.plan_gpu_hours);
}

}  // namespace
}  // namespace fastci::planner
