#include "evidence/ingest/fastci_jsonl_reader.h"

#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

namespace fastci::evidence {

namespace {

using nlohmann::json;

constexpr int kSchema = 1;
constexpr std::size_t kMaxMessage = 4000;

/// A record that does not match the documented shape.
struct ShapeError {
  std::string message;
};

std::string get_string(const json& record, const char* key, bool required = false) {
  auto found = record.find(key);
  if (found == record.end() || found->is_null()) {
    if (required) throw ShapeError{std::string("missing string '") + key + "'"};
    return {};
  }
  if (!found->is_string()) throw ShapeError{std::string("'") + key + "' must be a string"};
  return found->get<std::string>();
}

std::optional<double> get_number(const json& record, const char* key) {
  auto found = record.find(key);
  if (found == record.end() || found->is_null()) return std::nullopt;
  if (!found->is_number()) throw ShapeError{std::string("'") + key + "' must be a number"};
  return found->get<double>();
}

std::uint64_t get_count(const json& record, const char* key, std::uint64_t fallback) {
  auto found = record.find(key);
  if (found == record.end() || found->is_null()) return fallback;
  if (!found->is_number_unsigned() && !(found->is_number_integer() && found->get<std::int64_t>() >= 0)) {
    throw ShapeError{std::string("'") + key + "' must be a non-negative integer"};
  }
  return found->get<std::uint64_t>();
}

/// [[a, b], ...] with int elements in range.
std::vector<std::pair<int, int>> get_pairs(const json& record, const char* key) {
  std::vector<std::pair<int, int>> pairs;
  auto found = record.find(key);
  if (found == record.end() || found->is_null()) return pairs;
  auto bad = ShapeError{std::string("'") + key + "' must be an array of [int, int] pairs"};
  if (!found->is_array()) throw bad;
  for (const json& item : *found) {
    if (!item.is_array() || item.size() != 2 || !item[0].is_number_integer() || !item[1].is_number_integer()) {
      throw bad;
    }
    auto a = item[0].get<std::int64_t>(), b = item[1].get<std::int64_t>();
    if (a < -(1 << 30) || a > (1 << 30) || b < -(1 << 30) || b > (1 << 30)) throw bad;
    pairs.emplace_back(static_cast<int>(a), static_cast<int>(b));
  }
  return pairs;
}

std::vector<std::string> get_strings(const json& record, const char* key) {
  std::vector<std::string> items;
  auto found = record.find(key);
  if (found == record.end() || found->is_null()) return items;
  if (!found->is_array()) throw ShapeError{std::string("'") + key + "' must be an array of strings"};
  for (const json& item : *found) {
    if (!item.is_string()) throw ShapeError{std::string("'") + key + "' must be an array of strings"};
    items.push_back(item.get<std::string>());
  }
  return items;
}

class JsonlReader {
 public:
  JsonlReader(const std::filesystem::path& file, EvidenceSink& sink) : file_(file.string()), sink_(sink) {}

  util::Status read() {
    std::ifstream in(file_, std::ios::binary);
    if (!in) return util::Error{"cannot open evidence JSONL file", file_, 0};
    std::string text;
    int line = 0;
    std::optional<util::Error> unparsable;  // only fatal when another record follows
    while (std::getline(in, text)) {
      ++line;
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      if (unparsable) return *unparsable;
      json record = json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (record.is_discarded()) {
        unparsable = util::Error{"invalid JSON", file_, line};
        continue;
      }
      if (!record.is_object()) return util::Error{"expected a JSON object per line", file_, line};
      try {
        if (util::Status status = handle(record, line); !status) return status;
      } catch (const ShapeError& e) {
        return util::Error{record_type(record) + " record: " + e.message, file_, line};
      } catch (const json::exception& e) {
        return util::Error{record_type(record) + " record: " + e.what(), file_, line};
      }
    }
    if (unparsable) {
      sink_.warn(Warning{unparsable->file, unparsable->line,
                         "last line is not valid JSON (truncated write?); ignored"});
    }
    if (!saw_run_) return util::Error{"empty evidence file: expected a run record first", file_, line > 0 ? 1 : 0};
    flush();
    return {};
  }

 private:
  static std::string record_type(const json& record) {
    auto type = record.find("type");
    return type != record.end() && type->is_string() ? type->get<std::string>() : std::string("untyped");
  }

  util::Status handle(const json& record, int line) {
    std::string type = get_string(record, "type", true);
    if (!saw_run_) {
      if (type != "run") return util::Error{"expected a run record first, found '" + type + "'", file_, line};
      return handle_run(record, line);
    }
    if (type == "run") {
      sink_.warn(Warning{file_, line, "second run record ignored"});
    } else if (type == "test") {
      handle_test(record, line);
    } else if (type == "coverage") {
      TestEvidence& test = pending(get_string(record, "test"));
      std::string path = get_string(record, "file", true);
      std::vector<LineRange> lines = get_pairs(record, "lines");
      test.coverage.push_back(FileCoverage{path, std::move(lines), get_pairs(record, "arcs")});
    } else if (type == "context") {
      TestEvidence& test = pending(get_string(record, "test"));
      ExecutionContext context;
      context.function = get_string(record, "function", true);
      context.callers = get_strings(record, "callers");
      context.arguments = get_string(record, "arguments");
      context.arcs = get_pairs(record, "arcs");
      context.count = get_count(record, "count", 1);
      test.contexts.push_back(std::move(context));
    } else if (type == "kernel") {
      TestEvidence& test = pending(get_string(record, "test"));
      KernelLaunch kernel;
      kernel.name = get_string(record, "name", true);
      kernel.grid = get_string(record, "grid");
      kernel.block = get_string(record, "block");
      kernel.shared_memory = get_count(record, "shared_memory", 0);
      kernel.template_arguments = get_strings(record, "template_arguments");
      kernel.count = get_count(record, "count", 1);
      kernel.total_duration_us = get_number(record, "total_duration_us").value_or(0);
      test.kernels.push_back(std::move(kernel));
    } else {
      sink_.warn(Warning{file_, line, "unknown record type '" + type + "' ignored"});
    }
    return {};
  }

  util::Status handle_run(const json& record, int line) {
    auto schema = record.find("schema");
    if (schema == record.end() || !schema->is_number_integer()) {
      return util::Error{"run record: missing integer 'schema'", file_, line};
    }
    if (schema->get<std::int64_t>() != kSchema) {
      return util::Error{"unsupported evidence schema " + std::to_string(schema->get<std::int64_t>()) +
                             " (this fastci reads schema " + std::to_string(kSchema) + ")",
                         file_, line};
    }
    Run run;
    run.commit = get_string(record, "commit");
    run.started_at = get_string(record, "started_at");
    run.runner = get_string(record, "runner");
    json environment = json::object();
    if (auto found = record.find("environment"); found != record.end() && !found->is_null()) {
      if (!found->is_object()) throw ShapeError{"'environment' must be an object"};
      environment = *found;
    }
    std::string collector = get_string(record, "collector");
    if (!collector.empty()) environment["collector"] = collector;
    run.environment = environment.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    run.source_format = "fastci-jsonl";
    run.source_file = file_;
    sink_.begin_run(run);
    saw_run_ = true;
    return {};
  }

  void handle_test(const json& record, int line) {
    TestEvidence& test = pending(get_string(record, "id", true));
    std::string outcome = get_string(record, "outcome");
    if (!outcome.empty()) {
      test.outcome = outcome_from_string(outcome);
      if (!test.outcome) sink_.warn(Warning{file_, line, "unknown outcome '" + outcome + "'"});
    }
    if (auto duration = get_number(record, "duration")) {
      if (*duration < 0) throw ShapeError{"'duration' must not be negative"};
      test.duration_seconds = duration;
    }
    test.gpus = static_cast<int>(std::min<std::uint64_t>(get_count(record, "gpus", 0), 1 << 20));
    if (auto knobs = record.find("knobs"); knobs != record.end() && !knobs->is_null()) {
      if (!knobs->is_object()) throw ShapeError{"'knobs' must be an object"};
      for (const auto& [knob, value] : knobs->items()) {
        test.knobs[knob] = value.is_string() ? value.get<std::string>() : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      }
    }
    test.message = get_string(record, "message").substr(0, kMaxMessage);
  }

  /// The buffered evidence for `test_id`, handing the previous test's on when the id changes.
  TestEvidence& pending(const std::string& test_id) {
    if (pending_ && pending_->test_id != test_id) flush();
    if (!pending_) {
      pending_.emplace();
      pending_->test_id = test_id;
    }
    return *pending_;
  }

  void flush() {
    if (pending_) sink_.add_test(std::move(*pending_));
    pending_.reset();
  }

  std::string file_;
  EvidenceSink& sink_;
  bool saw_run_ = false;
  std::optional<TestEvidence> pending_;
};

}  // namespace

bool sniff_fastci_jsonl(std::string_view head, const std::filesystem::path&) {
  std::string_view first = head.substr(0, head.find('\n'));
  json record = json::parse(first, nullptr, false);
  if (!record.is_object()) {
    // The head may end inside a long first line: look for the telltale keys instead.
    return first.size() == head.size() && first.find("\"type\"") != std::string_view::npos &&
           first.find("\"run\"") != std::string_view::npos && first.find("\"schema\"") != std::string_view::npos;
  }
  auto type = record.find("type");
  return type != record.end() && *type == "run" && record.contains("schema");
}

util::Status read_fastci_jsonl(const std::filesystem::path& file, EvidenceSink& sink) {
  JsonlReader reader(file, sink);
  return reader.read();
}

}  // namespace fastci::evidence
