// Ingest speed of the largest real trace (35 MB of JSON, 1.2 MB gzipped, 75,718 events).

#include <benchmark/benchmark.h>

#include <filesystem>

#include "evidence/ingest/kineto_reader.h"

namespace fastci::evidence {
namespace {

/// Counts what arrives, so that the reader's work cannot be optimised away.
class CountingSink : public EvidenceSink {
 public:
  void begin_run(const Run&) override {}
  void add_test(TestEvidence&& test) override {
    for (const auto& kernel : test.kernels) launches += kernel.count;
  }
  void warn(Warning) override {}
  std::uint64_t launches = 0;
};

const std::filesystem::path kTrace = std::filesystem::path(FASTCI_SHARED_DIR) /
                                     "data/traces/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";

void ingest(benchmark::State& state, const KinetoOptions& options) {
  for (auto _ : state) {
    CountingSink sink;
    const auto status = read_kineto(kTrace, sink, options);
    if (!status.ok() || sink.launches != 8772) {
      state.SkipWithError(status.ok() ? "wrong launch count" : status.error().to_string().c_str());
      return;
    }
    benchmark::DoNotOptimize(sink.launches);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 35'154'637);  // uncompressed JSON
}

void BM_KinetoIngestWholeFile(benchmark::State& state) { ingest(state, KinetoOptions{.test_id = "t", .test_id_of_range = {}}); }
BENCHMARK(BM_KinetoIngestWholeFile)->Unit(benchmark::kMillisecond);

void BM_KinetoIngestRanges(benchmark::State& state) {
  ingest(state, KinetoOptions{.test_id = {}, .test_id_of_range = [](std::string_view name) -> std::optional<std::string> {
                                if (!name.starts_with("ProfilerStep#")) return std::nullopt;
                                return std::string(name);
                              }});
}
BENCHMARK(BM_KinetoIngestRanges)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fastci::evidence

BENCHMARK_MAIN();
