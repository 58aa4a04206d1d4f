// "Which tests cover this changed function?" on a store the size of a large CI: 10,000 tests x about
// 2,000 files, made by replicating real coverage.py data (the per-file line sets of DeepSpeed's CPU
// test run, 464 files) under package copies: test i covers every tenth file, starting at i % 10.
//
// usage: build/evidence/fastci_store_perftest [--benchmark_filter=...]
// The store is built once per process in a temporary folder (about 20 s) and removed at exit.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "evidence/ingest/coveragepy_json.h"
#include "evidence/store/store.h"

namespace fastci::evidence {
namespace {

namespace fs = std::filesystem;

constexpr int kTests = 10000;
constexpr int kPackageCopies = 5;  // 464 real files x 5 = 2,320 files

const fs::path kCoverage = fs::path(FASTCI_SHARED_DIR) / "data/coverage/coveragepy/deepspeed-cpu.coverage.json";

/// Collects the real file's per-file coverage (one entry per path) in memory.
class CollectingSink : public EvidenceSink {
 public:
  void begin_run(const Run&) override {}
  void add_test(TestEvidence&& test) override {
    for (auto& file : test.coverage) files.emplace(file.path, std::move(file));
  }
  void warn(Warning) override {}
  std::map<std::string, FileCoverage> files;
};

struct LargeStore {
  fs::path directory;
  std::unique_ptr<Store> store;
  std::string hot_file;  ///< the file most tests cover
  LineRange hot_range;   ///< a function-sized range inside it
  ~LargeStore() { fs::remove_all(directory); }
};

LargeStore& large_store() {
  static std::unique_ptr<LargeStore> s = [] {
    auto owned = std::make_unique<LargeStore>();
    LargeStore& out = *owned;
    out.directory = fs::temp_directory_path() / ("fastci-store-perf-" + std::to_string(::getpid()));
    fs::remove_all(out.directory);
    fs::create_directories(out.directory);
    CollectingSink real;
    if (!read_coveragepy_json(kCoverage, real).ok() || real.files.empty()) std::abort();
    std::vector<FileCoverage> files;
    for (auto& [path, coverage] : real.files) files.push_back(coverage);
    auto store = Store::open("sqlite://" + (out.directory / "evidence.db").string());
    if (!store.ok()) std::abort();
    out.store = std::move(*store);
    std::map<std::string, int> covering;
    auto ingested = out.store->ingest(
        [&](EvidenceSink& sink) {
          sink.begin_run(Run{"c0ffee", "2026-12-01T00:00:00Z", "perf", "{}", "synthetic", ""});
          for (int i = 0; i < kTests; ++i) {
            TestEvidence test;
            test.test_id = "tests/unit/test_synthetic_" + std::to_string(i / 100) + ".py::test_case[" +
                           std::to_string(i) + "]";
            test.outcome = Outcome::passed;
            test.duration_seconds = 1.0 + i % 17;
            for (std::size_t j = i % 10; j < files.size(); j += 10) {
              FileCoverage file = files[j];
              file.path = "copy" + std::to_string(i / 10 % kPackageCopies) + "/" + file.path;
              ++covering[file.path];
              test.coverage.push_back(std::move(file));
            }
            sink.add_test(std::move(test));
          }
          return util::Status{};
        },
        "synthetic", "perf");
    if (!ingested.ok()) std::abort();
    int best = 0;
    for (const auto& [path, count] : covering)
      if (count > best) best = count, out.hot_file = path;
    // A function-sized range in the middle of what is covered there.
    const auto& lines = real.files.at(out.hot_file.substr(out.hot_file.find('/') + 1)).lines;
    int middle = lines.empty() ? 1 : lines[lines.size() / 2].first;
    out.hot_range = {middle, middle + 40};
    return owned;
  }();
  return *s;
}

void BM_TestsCoveringAChangedFunction(benchmark::State& state) {
  auto& s = large_store();
  std::size_t hits = 0;
  for (auto _ : state) {
    auto covering = s.store->tests_covering(s.hot_file, s.hot_range);
    if (!covering.ok()) state.SkipWithError(covering.error().to_string().c_str());
    hits = covering->size();
  }
  auto stats = s.store->stats();
  state.counters["tests_found"] = static_cast<double>(hits);
  state.counters["store_tests"] = static_cast<double>(stats->tests);
  state.counters["store_files"] = static_cast<double>(stats->files);
  state.counters["coverage_rows"] = static_cast<double>(stats->coverage_rows);
  state.counters["store_MB"] = static_cast<double>(stats->bytes) / 1e6;
}
BENCHMARK(BM_TestsCoveringAChangedFunction)->Unit(benchmark::kMillisecond);

void BM_TestsCoveringAColdFile(benchmark::State& state) {
  auto& s = large_store();
  for (auto _ : state) {
    auto covering = s.store->tests_covering("copy3/deepspeed/no/such/file.py", {1, 1000});
    benchmark::DoNotOptimize(covering);
  }
}
BENCHMARK(BM_TestsCoveringAColdFile)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fastci::evidence

BENCHMARK_MAIN();
