#include "planner/risk.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

#include "util/file.h"

namespace fastci::planner {

std::array<double, RiskFeatures::kCount> RiskFeatures::values() const {
  return {contexts, proximity, kernel_change, numerics_change, parallel_change,
          change_size, failure_rate, cofailure, flakiness, specificity};
}

const std::array<const char*, RiskFeatures::kCount>& RiskFeatures::names() {
  static const std::array<const char*, kCount> names = {
      "contexts", "proximity", "kernel_change", "numerics_change", "parallel_change",
      "change_size", "failure_rate", "cofailure", "flakiness", "specificity"};
  return names;
}

RiskWeights RiskWeights::defaults() {
  // Chosen so that a test with no history that reaches a changed kernel directly scores ~0.5,
  // and a history of failures dominates; flakiness lowers the score. Specificity's weight 1 makes
  // the odds proportional to the test's share of the change's faults.
  RiskWeights w;
  w.weights = {1.5, 1.5, 1.0, 0.7, 0.7, 0.5, 3.0, 2.0, -2.0, 1.0};
  w.bias = -3.0;
  return w;
}

std::string RiskWeights::to_json() const {
  nlohmann::json j;
  for (std::size_t i = 0; i < RiskFeatures::kCount; ++i) j["weights"][RiskFeatures::names()[i]] = weights[i];
  j["bias"] = bias;
  j["model"] = "logistic";
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

util::Result<RiskWeights> RiskWeights::from_file(const std::string& path) {
  auto text = util::read_file(path);
  if (!text.ok()) return text.error();
  auto parsed = from_json(*text);
  if (!parsed.ok()) return util::Error{parsed.error().message, path, 0};
  return parsed;
}

util::Result<RiskWeights> RiskWeights::from_json(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("weights"))
    return util::Error{"risk weights: expected a JSON object with \"weights\" and \"bias\""};
  RiskWeights w = defaults();
  for (std::size_t i = 0; i < RiskFeatures::kCount; ++i) {
    const auto& entry = j["weights"].value(RiskFeatures::names()[i], nlohmann::json());
    if (entry.is_number()) w.weights[i] = entry.get<double>();
  }
  if (j.contains("bias") && j["bias"].is_number()) w.bias = j["bias"].get<double>();
  return w;
}

double risk_score(const RiskFeatures& features, const RiskWeights& weights) {
  auto x = features.values();
  double z = weights.bias;
  for (std::size_t i = 0; i < x.size(); ++i) z += weights.weights[i] * x[i];
  return 1.0 / (1.0 + std::exp(-z));
}

void history_features(const std::vector<HistoryPoint>& history, RiskFeatures& f, double half_life) {
  // Only failures that came with a change to code the test reaches say something about code: a
  // failure at equal code is the environment's (or flakiness, counted apart).
  double weight_sum = 0, failed_sum = 0;
  int failures = 0, failures_touching = 0, flips_without_change = 0;
  for (std::size_t i = 0; i < history.size(); ++i) {
    double age = static_cast<double>(history.size() - 1 - i);
    double w = std::pow(0.5, age / half_life);
    weight_sum += w;
    bool code_failure = history[i].failed && history[i].code_changed;
    failed_sum += w * code_failure;
    if (code_failure) {
      ++failures;
      failures_touching += history[i].touched_changed_files;
    }
    if (i > 0 && history[i].failed != history[i - 1].failed)
      flips_without_change += !history[i].code_changed;
  }
  f.failure_rate = weight_sum > 0 ? failed_sum / weight_sum : 0;
  f.cofailure = failures > 0 ? static_cast<double>(failures_touching) / failures : 0;
  f.flakiness = history.size() > 1 ? static_cast<double>(flips_without_change) / (history.size() - 1) : 0;
}

RiskWeights fit_risk_weights(const std::vector<RiskSample>& samples, int iterations, double lr, double l2) {
  RiskWeights w;
  w.weights.fill(0);
  w.bias = 0;
  if (samples.empty()) return RiskWeights::defaults();
  const double n = static_cast<double>(samples.size());
  for (int it = 0; it < iterations; ++it) {
    std::array<double, RiskFeatures::kCount> grad{};
    double grad_bias = 0;
    for (const auto& s : samples) {
      double error = risk_score(s.features, w) - (s.failed ? 1.0 : 0.0);
      auto x = s.features.values();
      for (std::size_t i = 0; i < x.size(); ++i) grad[i] += error * x[i];
      grad_bias += error;
    }
    for (std::size_t i = 0; i < grad.size(); ++i) w.weights[i] -= lr * (grad[i] / n + l2 * w.weights[i]);
    w.bias -= lr * grad_bias / n;
  }
  return w;
}

double risk_per_gpu_second(double risk, double gpu_seconds, double cost_floor) {
  return risk / std::max(gpu_seconds, cost_floor);
}

std::vector<std::size_t> order_by_risk(const std::vector<double>& risks, const std::vector<double>& costs,
                                       double cost_floor) {
  std::vector<std::size_t> order(risks.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> rate(risks.size());
  for (std::size_t i = 0; i < risks.size(); ++i) rate[i] = risk_per_gpu_second(risks[i], costs[i], cost_floor);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (rate[a] != rate[b]) return rate[a] > rate[b];
    if (risks[a] != risks[b]) return risks[a] > risks[b];
    return costs[a] < costs[b];
  });
  return order;
}

}  // namespace fastci::planner
