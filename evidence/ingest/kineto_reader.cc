#include "evidence/ingest/kineto_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "evidence/ingest/gcov_file_input.h"
#include "evidence/ingest/kineto_event_stream.h"
#include "evidence/ingest/kineto_kernels.h"

namespace fastci::evidence {

namespace {

static_assert(kEventPadding >= simdjson::SIMDJSON_PADDING, "events must carry simdjson's padding");

enum class EventKind { other, kernel, runtime, range };

bool equals_lower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i] >= 'A' && text[i] <= 'Z' ? static_cast<char>(text[i] - 'A' + 'a') : text[i];
    if (c != lower[i]) return false;
  }
  return true;
}

EventKind classify(std::string_view category) {
  if (equals_lower(category, "kernel")) return EventKind::kernel;
  if (category == "cuda_runtime" || category == "cuda_driver" || category == "Runtime") return EventKind::runtime;
  if (category == "user_annotation" || category == "Operator") return EventKind::range;
  return EventKind::other;
}

/// A pid or tid as text: integers in current traces, strings ("stream 7", "25738") in 2021 ones.
std::string id_text(simdjson::dom::element value) {
  std::string_view text;
  if (value.get_string().get(text) == simdjson::SUCCESS) return std::string(text);
  int64_t number = 0;
  if (value.get_int64().get(number) == simdjson::SUCCESS) return std::to_string(number);
  double real = 0;
  if (value.get_double().get(real) == simdjson::SUCCESS) return std::to_string(static_cast<int64_t>(real));
  return {};
}

std::optional<std::uint64_t> unsigned_arg(simdjson::dom::object args, std::string_view key) {
  simdjson::dom::element value;
  if (args.at_key(key).get(value) != simdjson::SUCCESS) return std::nullopt;
  uint64_t number = 0;
  if (value.get_uint64().get(number) == simdjson::SUCCESS) return number;
  double real = 0;
  if (value.get_double().get(real) == simdjson::SUCCESS && real >= 0) return static_cast<std::uint64_t>(real);
  return std::nullopt;
}

/// "x,y,z" from an args array such as "grid": [3, 2, 544]; empty when absent or not numbers.
std::string dims_arg(simdjson::dom::object args, std::string_view key) {
  simdjson::dom::array values;
  if (args.at_key(key).get_array().get(values) != simdjson::SUCCESS) return {};
  std::string text;
  for (simdjson::dom::element value : values) {
    int64_t number = 0;
    if (value.get_int64().get(number) != simdjson::SUCCESS) return {};
    if (!text.empty()) text.push_back(',');
    text += std::to_string(number);
  }
  return text;
}

struct Launch {
  std::uint32_t thread = 0;
  double ts = 0;
};

struct PendingKernel {
  std::uint32_t config = 0;
  double duration_us = 0;
  std::uint64_t correlation = 0;
  std::uint64_t external_id = 0;
  bool has_correlation = false;
  bool has_external_id = false;
};

class KinetoParser {
 public:
  KinetoParser(const std::filesystem::path& file, EvidenceSink& sink, const KinetoOptions& options)
      : file_(file.string()), sink_(sink), options_(options), whole_file_(!options.test_id.empty()) {
    if (whole_file_) file_test_ = kernels_.intern_test(options.test_id);
  }

  util::Status run() {
    auto input = FileInput::open(file_);
    if (!input) return input.error();
    Run run;
    run.source_format = "kineto";
    run.source_file = file_;
    sink_.begin_run(run);
    const TraceEventCallback callback = [this](std::string_view event, int line) { return on_event(event, line); };
    if (auto status = for_each_trace_event(**input, callback); !status) return status;
    if (!whole_file_) attribute();
    report();
    kernels_.emit(sink_);
    return {};
  }

 private:
  util::Status on_event(std::string_view bytes, int line) {
    simdjson::dom::element element;
    if (const auto error = parser_.parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), false).get(element);
        error != simdjson::SUCCESS) {
      return util::Error{std::string("malformed trace event: ") + simdjson::error_message(error) +
                             "; expected a JSON object",
                         file_, line};
    }
    simdjson::dom::object event;
    if (element.get_object().get(event) != simdjson::SUCCESS) {
      return util::Error{"trace event is not a JSON object", file_, line};
    }
    std::string_view phase, category;
    if (event.at_key("ph").get_string().get(phase) != simdjson::SUCCESS || phase != "X") return {};
    if (event.at_key("cat").get_string().get(category) != simdjson::SUCCESS) return {};
    const EventKind kind = classify(category);
    if (kind == EventKind::other || (whole_file_ && kind != EventKind::kernel)) return {};
    std::string_view name;
    if (event.at_key("name").get_string().get(name) != simdjson::SUCCESS) {
      warn(line, std::string(category) + " event without a name; skipped");
      return {};
    }
    double ts = 0, duration = 0;
    const bool has_ts = event.at_key("ts").get_double().get(ts) == simdjson::SUCCESS;
    if (event.at_key("dur").get_double().get(duration) != simdjson::SUCCESS || duration < 0) duration = 0;
    simdjson::dom::object args;
    const bool has_args = event.at_key("args").get_object().get(args) == simdjson::SUCCESS;
    switch (kind) {
      case EventKind::kernel:
        return on_kernel(name, duration, has_args ? &args : nullptr, line);
      case EventKind::runtime:
        if (has_ts && has_args && name.find("aunch") != std::string_view::npos) on_runtime(event, args, ts);
        return {};
      case EventKind::range:
        if (has_ts) on_range(event, name, ts, duration);
        return {};
      case EventKind::other:
        return {};
    }
    return {};
  }

  util::Status on_kernel(std::string_view name, double duration, const simdjson::dom::object* args, int line) {
    (void)line;
    KernelConfig config;
    config.name = demangle_kernel_name(name);
    PendingKernel pending;
    if (args != nullptr) {
      config.grid = dims_arg(*args, "grid");
      config.block = dims_arg(*args, "block");
      config.shared_memory = unsigned_arg(*args, "shared memory").value_or(0);
      if (const auto correlation = unsigned_arg(*args, "correlation")) {
        pending.correlation = *correlation;
        pending.has_correlation = true;
      }
      if (const auto external = external_id(*args)) {
        pending.external_id = *external;
        pending.has_external_id = true;
      }
    }
    const std::uint32_t id = kernels_.intern(config);
    if (whole_file_) {
      kernels_.add(file_test_, id, duration);
      return {};
    }
    pending.config = id;
    pending.duration_us = duration;
    pending_.push_back(pending);
    return {};
  }

  static std::optional<std::uint64_t> external_id(simdjson::dom::object args) {
    if (auto id = unsigned_arg(args, "External id")) return id;
    return unsigned_arg(args, "external id");  // 2021 traces
  }

  std::uint32_t thread_of(simdjson::dom::object event) {
    std::string key;
    simdjson::dom::element value;
    if (event.at_key("pid").get(value) == simdjson::SUCCESS) key = id_text(value);
    const auto process = processes_.try_emplace(key, static_cast<std::uint32_t>(processes_.size())).first->second;
    key.push_back('/');
    if (event.at_key("tid").get(value) == simdjson::SUCCESS) key += id_text(value);
    const auto [it, inserted] = threads_.try_emplace(std::move(key), static_cast<std::uint32_t>(threads_.size()));
    if (inserted) process_of_thread_.push_back(process);
    return it->second;
  }

  void on_runtime(simdjson::dom::object event, simdjson::dom::object args, double ts) {
    const Launch launch{thread_of(event), ts};
    if (const auto correlation = unsigned_arg(args, "correlation")) by_correlation_[*correlation] = launch;
    if (const auto external = external_id(args)) by_external_id_.try_emplace(*external, launch);
  }

  void on_range(simdjson::dom::object event, std::string_view name, double ts, double duration) {
    if (!options_.test_id_of_range) return;
    const auto test_id = options_.test_id_of_range(name);
    if (!test_id) return;
    const std::uint32_t thread = thread_of(event);
    ranges_.add(process_of_thread_[thread], thread, ts, ts + duration, kernels_.intern_test(*test_id));
  }

  void attribute() {
    ranges_.sort();
    const std::uint32_t outside = kernels_.intern_test("");
    for (const PendingKernel& kernel : pending_) {
      const Launch* launch = nullptr;
      if (kernel.has_correlation) {
        const auto found = by_correlation_.find(kernel.correlation);
        if (found != by_correlation_.end()) launch = &found->second;
      }
      if (launch == nullptr && kernel.has_external_id) {
        const auto found = by_external_id_.find(kernel.external_id);
        if (found != by_external_id_.end()) launch = &found->second;
      }
      std::optional<std::uint32_t> test;
      if (launch != nullptr) {
        test = ranges_.find(process_of_thread_[launch->thread], launch->thread, launch->ts);
      } else {
        ++unmatched_;
      }
      kernels_.add(test.value_or(outside), kernel.config, kernel.duration_us);
    }
  }

  void report() {
    if (whole_file_ || kernels_.launches() == 0) return;
    if (ranges_.size() == 0) {
      warn(0, "no range names a test and no test id was given: " + std::to_string(kernels_.launches()) +
                  " kernel launches recorded outside any test");
    } else if (unmatched_ > 0) {
      warn(0, std::to_string(unmatched_) + " kernel launches have no runtime call with their correlation id; "
                                          "recorded outside any test");
    }
  }

  void warn(int line, std::string message) {
    if (++warnings_ <= 100) sink_.warn(Warning{file_, line, std::move(message)});
  }

  std::string file_;
  EvidenceSink& sink_;
  const KinetoOptions& options_;
  const bool whole_file_;
  std::uint32_t file_test_ = 0;
  simdjson::dom::parser parser_;
  KernelTable kernels_;
  std::vector<PendingKernel> pending_;
  std::unordered_map<std::string, std::uint32_t> threads_;
  std::unordered_map<std::uint64_t, Launch> by_correlation_;
  std::unordered_map<std::uint64_t, Launch> by_external_id_;
  std::unordered_map<std::string, std::uint32_t> processes_;
  std::vector<std::uint32_t> process_of_thread_;
  TestRangeIndex ranges_;
  std::uint64_t unmatched_ = 0;
  int warnings_ = 0;
};

}  // namespace

std::optional<std::string> pytest_node_id_range(std::string_view range_name) {
  const auto separator = range_name.find("::");
  if (separator == std::string_view::npos || !range_name.substr(0, separator).ends_with(".py")) return std::nullopt;
  if (range_name.find_first_of(" \t\n") < separator) return std::nullopt;
  return std::string(range_name);
}

util::Status read_kineto(const std::filesystem::path& file, EvidenceSink& sink, const KinetoOptions& options) {
  return KinetoParser(file, sink, options).run();
}

util::Status read_kineto(const std::filesystem::path& file, EvidenceSink& sink) {
  return read_kineto(file, sink, KinetoOptions{});
}

bool sniff_kineto(std::string_view head, const std::filesystem::path& file) {
  (void)file;
  const std::string text = inflate_head(head);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return false;
  if (text[first] == '{') {
    return text.find("\"traceEvents\"") != std::string::npos ||
           (text.find("\"schemaVersion\"") != std::string::npos && text.find("\"deviceProperties\"") != std::string::npos);
  }
  // The JSON array form of the Chrome trace format: events with "ph" and "ts".
  return text[first] == '[' && text.find("\"ph\"") != std::string::npos && text.find("\"ts\"") != std::string::npos;
}

}  // namespace fastci::evidence
