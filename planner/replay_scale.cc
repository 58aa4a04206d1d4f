#include "planner/replay_scale.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>

#include "planner/replay.h"
#include "planner/schedule.h"
#include "util/file.h"

namespace fastci::planner {
namespace {

using nlohmann::json;

std::string normalise(const std::string& test_file) {
  // Some keys are absolute runner paths: /__w/pytorch/pytorch/test/profiler/test_x.
  std::size_t at = test_file.find("/test/");
  return !test_file.empty() && test_file[0] == '/' && at != std::string::npos ? test_file.substr(at + 6) : test_file;
}

util::Result<json> read_json(const std::filesystem::path& file) {
  auto text = util::read_file(file);
  if (!text.ok()) return text.error();
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return util::Error{"expected a JSON object", file.string()};
  return j;
}

struct Simulated {
  double latency = 0, gpu_hours = 0;
};

Simulated run(const std::vector<std::pair<std::string, double>>& tests, int cluster_gpus) {
  std::vector<ScheduledJob> jobs;
  jobs.reserve(tests.size());
  for (const auto& [name, seconds] : tests) jobs.push_back({name, 1, seconds});
  auto s = schedule_ranked(std::move(jobs), cluster_gpus);
  return {s.makespan_seconds, s.gpu_seconds / 3600.0};
}

ScaleSummary summarise(std::vector<double> latencies, const std::vector<double>& gpu_hours,
                       const std::vector<double>& tests) {
  ScaleSummary s;
  if (latencies.empty()) return s;
  double n = static_cast<double>(latencies.size());
  for (std::size_t i = 0; i < latencies.size(); ++i) {
    s.mean_latency_seconds += latencies[i] / n;
    s.mean_gpu_hours += gpu_hours[i] / n;
    s.mean_tests += tests[i] / n;
  }
  std::sort(latencies.begin(), latencies.end());
  s.median_latency_seconds = latencies[latencies.size() / 2];
  s.p90_latency_seconds = latencies[std::min(latencies.size() - 1, latencies.size() * 9 / 10)];
  return s;
}

}  // namespace

util::Result<PytorchCiData> load_pytorch_ci(const std::filesystem::path& folder) {
  PytorchCiData data;
  auto times = read_json(folder / "test-times.json");
  if (!times.ok()) return times.error();
  for (const auto& [job, configs] : times->items()) {
    if (!configs.is_object()) return util::Error{"job '" + job + "': expected {config: {test: seconds}}", (folder / "test-times.json").string()};
    for (const auto& [config, tests] : configs.items()) {
      if (!tests.is_object()) continue;
      auto& out = data.test_times[job][config];
      for (const auto& [test, seconds] : tests.items())
        if (seconds.is_number()) {
          double& slot = out[normalise(test)];
          slot = std::max(slot, seconds.get<double>());
        }
    }
  }
  auto map = read_json(folder / "td_heuristic_profiling.json");
  if (!map.ok()) return map.error();
  for (const auto& [source, tests] : map->items()) {
    if (!tests.is_object()) continue;
    auto& out = data.tests_of_source[source];
    for (const auto& [test, score] : tests.items()) {
      out.push_back(normalise(test));
      ++data.map_pairs;
    }
  }
  return data;
}

util::Result<ScaleResult> simulate_pytorch_ci(const PytorchCiData& data, const std::string& job,
                                              const std::string& config, int cluster_gpus) {
  auto j = data.test_times.find(job);
  if (j == data.test_times.end()) return util::Error{"no job named '" + job + "' in test-times.json"};
  auto c = j->second.find(config);
  if (c == j->second.end()) return util::Error{"job '" + job + "' has no test config '" + config + "'"};
  const auto& times = c->second;
  std::set<std::string> mapped;
  for (const auto& [source, tests] : data.tests_of_source) mapped.insert(tests.begin(), tests.end());

  // Longest first: the order a time-aware sharder uses, and the same for every plan.
  std::vector<std::pair<std::string, double>> all(times.begin(), times.end());
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  ScaleResult r;
  r.job = job;
  r.config = config;
  r.cluster_gpus = cluster_gpus;
  r.test_files = all.size();
  for (const auto& [test, seconds] : all) r.unmapped_test_files += mapped.count(test) ? 0 : 1;
  auto whole = run(all, cluster_gpus);
  r.all_latency_seconds = whole.latency;
  r.all_gpu_hours = whole.gpu_hours;

  std::vector<double> latency[2], gpu_hours[2], tests[2];
  for (const auto& [source, covering] : data.tests_of_source) {
    std::set<std::string> hit(covering.begin(), covering.end());
    std::vector<std::pair<std::string, double>> plan[2];
    for (const auto& entry : all) {
      bool covers = hit.count(entry.first) > 0;
      if (covers) plan[0].push_back(entry);
      if (covers || !mapped.count(entry.first)) plan[1].push_back(entry);
    }
    for (int k = 0; k < 2; ++k) {
      auto s = run(plan[k], cluster_gpus);
      latency[k].push_back(s.latency);
      gpu_hours[k].push_back(s.gpu_hours);
      tests[k].push_back(static_cast<double>(plan[k].size()));
    }
    ++r.changes;
  }
  r.coverage_only = summarise(latency[0], gpu_hours[0], tests[0]);
  r.with_unknowns = summarise(latency[1], gpu_hours[1], tests[1]);
  return r;
}

std::string format_scale(const std::vector<ScaleResult>& results) {
  std::ostringstream out;
  out << "| job / config | GPUs | test files (no evidence) | run-all latency, GPU-h | coverage-only: tests, latency "
         "mean / median / p90, GPU-h | + tests without evidence: tests, latency mean / median / p90, GPU-h |\n"
         "|---|---:|---:|---|---|---|\n";
  for (const auto& r : results) {
    auto line = [](const ScaleSummary& s) {
      return fixed(s.mean_tests, 0) + ", " + fixed(s.mean_latency_seconds / 60, 1) + " / " +
             fixed(s.median_latency_seconds / 60, 1) + " / " + fixed(s.p90_latency_seconds / 60, 1) + " min, " +
             fixed(s.mean_gpu_hours, 2);
    };
    out << "| " << r.job << " / " << (r.config.empty() ? "(empty)" : r.config) << " | " << r.cluster_gpus << " | "
        << r.test_files << " (" << r.unmapped_test_files << ") | " << fixed(r.all_latency_seconds / 60, 1) << " min, "
        << fixed(r.all_gpu_hours, 2) << " | " << line(r.coverage_only) << " | " << line(r.with_unknowns) << " |\n";
  }
  return out.str();
}

}  // namespace fastci::planner
