#include "evidence/ingest/coveragepy_json.h"

#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "evidence/ingest/coveragepy_contexts.h"

namespace fastci::evidence {

namespace {

util::Error error_at(const std::filesystem::path& file, const std::string& message) {
  return util::Error{message, file.string(), 0};
}

}  // namespace

bool sniff_coveragepy_json(std::string_view head, const std::filesystem::path&) {
  std::size_t start = head.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || head[start] != '{') return false;
  // coverage.py writes "meta" first, with its own keys.
  std::string_view begin = head.substr(start, 400);
  return begin.find("\"meta\"") != std::string_view::npos &&
         (begin.find("\"show_contexts\"") != std::string_view::npos ||
          begin.find("\"branch_coverage\"") != std::string_view::npos);
}

util::Status read_coveragepy_json(const std::filesystem::path& file, EvidenceSink& sink) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return error_at(file, "cannot open coverage.py JSON report");
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann reports a byte offset; the report is one JSON document, so that is the location.
    return error_at(file, std::string("invalid JSON: ") + e.what());
  }
  if (!report.is_object() || !report.contains("meta") || !report.contains("files") || !report["files"].is_object()) {
    return error_at(file, "not a coverage.py JSON report (expected an object with \"meta\" and \"files\")");
  }
  const nlohmann::json& meta = report["meta"];
  Run run;
  run.source_format = "coveragepy-json";
  run.source_file = file.string();
  nlohmann::json environment = nlohmann::json::object();
  if (meta.is_object()) {
    if (meta.contains("timestamp") && meta["timestamp"].is_string()) run.started_at = meta["timestamp"];
    if (meta.contains("version") && meta["version"].is_string()) environment["coverage_version"] = meta["version"];
  }
  run.environment = environment.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  sink.begin_run(run);

  bool show_contexts = meta.is_object() && meta.value("show_contexts", false);
  if (!show_contexts) {
    sink.warn(Warning{file.string(), 0,
                      "report made without --show-contexts: lines are recorded as run outside any test"});
  }
  // test id -> path -> lines; kept whole because the report is grouped by file, not by test.
  std::map<std::string, std::map<std::string, std::vector<int>>> by_test;
  std::size_t bad_entries = 0;
  for (const auto& [path, data] : report["files"].items()) {
    if (!data.is_object()) {
      ++bad_entries;
      continue;
    }
    if (show_contexts && data.contains("contexts") && data["contexts"].is_object()) {
      for (const auto& [line_text, contexts] : data["contexts"].items()) {
        char* end = nullptr;
        long line = std::strtol(line_text.c_str(), &end, 10);
        if (end == line_text.c_str() || *end != '\0' || line < 1 || line > (1 << 30) || !contexts.is_array()) {
          ++bad_entries;
          continue;
        }
        for (const auto& context : contexts) {
          if (!context.is_string()) {
            ++bad_entries;
            continue;
          }
          by_test[test_of_context(context.get<std::string>()).test_id][path].push_back(static_cast<int>(line));
        }
      }
    } else if (data.contains("executed_lines") && data["executed_lines"].is_array()) {
      for (const auto& line : data["executed_lines"]) {
        if (line.is_number_integer() && line.get<long>() >= 1 && line.get<long>() <= (1 << 30)) {
          by_test[""][path].push_back(line.get<int>());
        } else {
          ++bad_entries;
        }
      }
    }
  }
  if (bad_entries > 0) {
    sink.warn(Warning{file.string(), 0, std::to_string(bad_entries) + " malformed entries skipped"});
  }
  for (auto& [test_id, files] : by_test) {
    TestEvidence evidence;
    evidence.test_id = test_id;
    for (auto& [path, lines] : files) {
      std::sort(lines.begin(), lines.end());
      std::vector<LineRange> ranges;
      for (int line : lines) {
        if (!ranges.empty() && line <= ranges.back().second + 1) {
          ranges.back().second = std::max(ranges.back().second, line);
        } else {
          ranges.emplace_back(line, line);
        }
      }
      evidence.coverage.push_back(FileCoverage{path, std::move(ranges), {}});
    }
    sink.add_test(std::move(evidence));
  }
  return {};
}

}  // namespace fastci::evidence
