#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "planner/risk.h"

namespace fastci::planner {
namespace {

TEST(Risk, HistoryFeaturesWeighRecentFailuresAndFlips) {
  RiskFeatures recent, old;
  history_features({{false}, {false}, {false}, {true, true, true}}, recent);
  history_features({{true, true, true}, {false}, {false}, {false}}, old);
  EXPECT_GT(recent.failure_rate, old.failure_rate);
  EXPECT_DOUBLE_EQ(recent.cofailure, 1.0);

  // A failure at equal code (the environment's) is no code risk: it adds no failure rate.
  RiskFeatures environment;
  history_features({{false}, {true, false, true}, {true, false, true}}, environment);
  EXPECT_DOUBLE_EQ(environment.failure_rate, 0);
  EXPECT_DOUBLE_EQ(environment.cofailure, 0);

  RiskFeatures flaky;
  history_features({{false, false}, {true, false}, {false, false}, {true, false}}, flaky);
  EXPECT_DOUBLE_EQ(flaky.flakiness, 1.0);
}

TEST(Risk, FittedModelSeparatesFailingFromPassing) {
  std::vector<RiskSample> samples;
  for (int i = 0; i < 50; ++i) {
    RiskSample fail, pass;
    fail.features.proximity = 1;
    fail.features.failure_rate = 0.5 + (i % 5) * 0.1;
    fail.failed = true;
    pass.features.proximity = 0.2;
    pass.features.failure_rate = (i % 3) * 0.05;
    samples.push_back(fail);
    samples.push_back(pass);
  }
  auto w = fit_risk_weights(samples);
  EXPECT_GT(risk_score(samples[0].features, w), 0.8);
  EXPECT_LT(risk_score(samples[1].features, w), 0.2);
  auto back = RiskWeights::from_json(w.to_json());
  ASSERT_TRUE(back.ok());
  EXPECT_NEAR(back->bias, w.bias, 1e-12);
  EXPECT_FALSE(RiskWeights::from_json("[1,2]").ok());
}

TEST(Risk, WeightsFileRoundTripsAndErrorsNameTheFile) {
  auto dir = std::filesystem::temp_directory_path() / ("fastci_weights_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto good = (dir / "w.json").string();
  RiskWeights w = RiskWeights::defaults();
  w.bias = -1.25;
  std::ofstream(good) << w.to_json();
  auto read = RiskWeights::from_file(good);
  ASSERT_TRUE(read.ok()) << read.error().to_string();
  EXPECT_EQ(read->bias, -1.25);
  auto bad = (dir / "bad.json").string();
  std::ofstream(bad) << "[1,2]";
  auto broken = RiskWeights::from_file(bad);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().file, bad);
  EXPECT_FALSE(RiskWeights::from_file((dir / "missing.json").string()).ok());
  std::filesystem::remove_all(dir);
}

TEST(Risk, OrderIsRiskPerCost) {
  // 0.5 per 1 s finds more failures per GPU-second than 0.9 per 100 s.
  auto order = order_by_risk({0.9, 0.5, 0.5}, {100, 10, 1});
  EXPECT_EQ(order, (std::vector<std::size_t>{2, 1, 0}));
}

TEST(Risk, EqualRatesOrderByRiskThenCost) {
  // Same rate: the riskier first; same rate and risk: the cheaper first, then input order.
  auto order = order_by_risk({0.2, 0.4, 0.2, 0.2}, {2, 4, 1, 1});
  EXPECT_EQ(order, (std::vector<std::size_t>{2, 3, 1, 0}));
}

TEST(Risk, CostsBelowTheFloorCountAsTheFloor) {
  // Recorded at 0 s: without the floor both rates are infinite; with it the riskier runs first.
  auto order = order_by_risk({0.1, 0.3}, {0, 0}, 0.01);
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 0}));
  // A floor of 10 s makes 1 s and 5 s tests cost the same: risk decides.
  order = order_by_risk({0.2, 0.5}, {1, 5}, 10);
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 0}));
}

}  // namespace
}  // namespace fastci::planner
