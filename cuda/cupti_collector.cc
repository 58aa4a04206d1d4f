/// libfastci_cupti.so: kernel evidence from CUPTI activity records (CONCURRENT_KERNEL), with durations.
/// Load it with CUDA_INJECTION64_PATH (the driver calls InitializeInjection at cuInit) or LD_PRELOAD
/// (a constructor starts it). Launch API callbacks note which test was current at each correlation id,
/// so kernels that complete later are still charged to the test that launched them.
/// When CUPTI cannot subscribe (no driver, or another tool holds the subscription) it says so once
/// on stderr and does nothing else.

#include <cupti.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/current_test.h"
#include "cuda/evidence_writer.h"
#include "cuda/kernel_registry.h"
#include "cuda/launch_table.h"

namespace fastci::cuda {
namespace {

#if CUPTI_API_VERSION >= 130000
using KernelActivity = CUpti_ActivityKernel10;
#else
using KernelActivity = CUpti_ActivityKernel9;
#endif

constexpr const char* kCollector = "libfastci_cupti 0.1";
constexpr std::size_t kBufferBytes = 8u << 20;

/// From which correlation id on a test was current.
struct TestSegment {
  std::uint32_t first_correlation;
  std::uint32_t test;
};

struct Collector {
  CurrentTest tests{CurrentTestOptions::from_environment()};
  KernelRegistry kernels;
  LaunchTable launches;
  std::string directory;
  std::string started_at = iso8601_utc_now();
  long owner_pid = 0;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::atomic<std::uint32_t> last_test{0xffffffffu};
  SpinLock segments_lock;
  std::vector<TestSegment> segments;  // appended out of order across threads; sorted before lookups
  bool segments_sorted = true;
  std::atomic<std::uint64_t> dropped{0};
  SpinLock flush_lock;
};

Collector* the_collector = nullptr;

void report(const char* what, CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || !text) text = "unknown error";
  std::fprintf(stderr, "fastci cupti: %s failed (%s); no kernel activity will be recorded\n", what, text);
}

void CUPTIAPI on_launch_api(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (!the_collector || info->callbackSite != CUPTI_API_ENTER) return;
  Collector& state = *the_collector;
  std::uint32_t test = state.tests.current();
  if (test == state.last_test.load(std::memory_order_relaxed)) return;
  try {
    std::lock_guard guard(state.segments_lock);
    if (!state.segments.empty() && state.segments.back().first_correlation > info->correlationId) {
      state.segments_sorted = false;
    }
    state.segments.push_back({info->correlationId, test});
    state.last_test.store(test, std::memory_order_relaxed);
  } catch (...) {
  }
}

std::uint32_t test_of(Collector& state, std::uint32_t correlation) {
  std::lock_guard guard(state.segments_lock);
  if (!state.segments_sorted) {
    std::stable_sort(state.segments.begin(), state.segments.end(),
                     [](const TestSegment& a, const TestSegment& b) { return a.first_correlation < b.first_correlation; });
    state.segments_sorted = true;
  }
  auto after = std::upper_bound(state.segments.begin(), state.segments.end(), correlation,
                                [](std::uint32_t id, const TestSegment& segment) { return id < segment.first_correlation; });
  return after == state.segments.begin() ? 0 : std::prev(after)->test;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  Collector* state = the_collector;
  CUpti_Activity* record = nullptr;
  while (state && valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    const auto* kernel = reinterpret_cast<const KernelActivity*>(record);
    std::uint32_t index = state->kernels.intern_name(kernel->name ? kernel->name : "unnamed kernel");
    if (index == KernelRegistry::kUnknown) continue;
    LaunchKey key{test_of(*state, kernel->correlationId), index,
                  abi::Dim3{static_cast<unsigned>(kernel->gridX), static_cast<unsigned>(kernel->gridY),
                            static_cast<unsigned>(kernel->gridZ)},
                  abi::Dim3{static_cast<unsigned>(kernel->blockX), static_cast<unsigned>(kernel->blockY),
                            static_cast<unsigned>(kernel->blockZ)},
                  static_cast<std::uint64_t>(kernel->dynamicSharedMemory)};
    double duration_us = kernel->end > kernel->start ? (kernel->end - kernel->start) / 1000.0 : 0.0;
    state->launches.add(key, 1, duration_us);
  }
  size_t dropped = 0;
  if (state && cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) {
    state->dropped.fetch_add(dropped, std::memory_order_relaxed);
  }
  std::free(buffer);
}

void flush() noexcept {
  Collector* state = the_collector;
  if (!state || state->owner_pid != ::getpid()) return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  try {
    std::lock_guard guard(state->flush_lock);
    auto launches = state->launches.snapshot();
    if (launches.empty() || state->directory.empty()) return;
    std::uint64_t recorded = 0;
    for (const auto& entry : launches) recorded += entry.second.count;
    RunInfo run = describe_process(kCollector, state->started_at);
    run.environment.emplace_back("recorded_launches", std::to_string(recorded));
    run.environment.emplace_back("dropped_records", std::to_string(state->dropped.load()));
    auto records = kernel_records(launches, state->tests.names(), state->kernels.names(), true);
    make_directories(state->directory);
    util::Status status = write_file_atomically(evidence_path(state->directory, "cupti", ::getpid()),
                                                format_evidence(run, records));
    if (!status) std::fprintf(stderr, "fastci cupti: %s\n", status.error().to_string().c_str());
  } catch (...) {
  }
}

void flush_at_exit() { flush(); }

/// Enables the API callbacks whose names say they launch work (cudaLaunchKernel*, __cudaLaunchKernel*,
/// cuLaunchKernel*, cuGraphLaunch*, ...), found by name so that ids of any CUPTI version are right.
CUptiResult enable_launch_callbacks(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain, int size) {
  for (int id = 0; id < size; ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, static_cast<CUpti_CallbackId>(id), &name) != CUPTI_SUCCESS || !name) continue;
    if (!std::strstr(name, "Launch") || std::strstr(name, "HostFunc")) continue;
    CUptiResult result = cuptiEnableCallback(1, subscriber, domain, static_cast<CUpti_CallbackId>(id));
    if (result != CUPTI_SUCCESS) return result;
  }
  return CUPTI_SUCCESS;
}

void start() {
  auto* state = new Collector;
  if (const char* directory = std::getenv("FASTCI_EVIDENCE_DIR")) state->directory = directory;
  state->owner_pid = ::getpid();
  CUptiResult result = cuptiSubscribe(&state->subscriber, on_launch_api, nullptr);
  if (result != CUPTI_SUCCESS) {
    report("cuptiSubscribe", result);
    delete state;
    return;
  }
  struct Step {
    const char* what;
    CUptiResult result;
  };
  for (Step step : {Step{"enabling runtime launch callbacks",
                         enable_launch_callbacks(state->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                                 CUPTI_RUNTIME_TRACE_CBID_SIZE)},
                    Step{"enabling driver launch callbacks",
                         enable_launch_callbacks(state->subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                                                 CUPTI_DRIVER_TRACE_CBID_SIZE)},
                    Step{"cuptiActivityRegisterCallbacks", cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)},
                    Step{"cuptiActivityEnable(CONCURRENT_KERNEL)",
                         cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)}}) {
    if (step.result != CUPTI_SUCCESS) {
      report(step.what, step.result);
      cuptiUnsubscribe(state->subscriber);
      delete state;
      return;
    }
  }
  the_collector = state;
  std::atexit(flush_at_exit);
}

void start_once() {
  static std::once_flag once;
  std::call_once(once, start);
}

__attribute__((constructor)) void start_when_preloaded() {
  // Under CUDA_INJECTION64_PATH the driver calls InitializeInjection; start there, not here.
  if (!std::getenv("CUDA_INJECTION64_PATH")) start_once();
}

__attribute__((destructor)) void flush_on_unload() { flush(); }

}  // namespace
}  // namespace fastci::cuda

/// Entry point the CUDA driver calls for the library named by CUDA_INJECTION64_PATH.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  fastci::cuda::start_once();
  return 1;
}
