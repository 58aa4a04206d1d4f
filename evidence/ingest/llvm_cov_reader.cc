#include "evidence/ingest/llvm_cov_reader.h"

#include <map>

#include "evidence/ingest/gcov_file_input.h"
#include "evidence/ingest/gcov_json_document.h"
#include "evidence/ingest/lcov_line_ranges.h"

namespace fastci::evidence {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

bool is_region_start(const CoverageSegment& segment) {
  return !segment.is_gap_region && segment.has_count && segment.is_region_entry;
}

util::Error shape_error(const std::string& file, const std::string& where, const char* expected) {
  return util::Error{where + ": expected " + expected + " (llvm-cov export JSON)", file, 1};
}

/// One [line, col, count, hasCount, isRegionEntry(, isGapRegion)] array.
bool read_segment(element value, CoverageSegment& segment) {
  array fields;
  if (value.get_array().get(fields) != simdjson::SUCCESS) return false;
  std::size_t index = 0;
  int64_t line = 0, column = 0;
  for (element field : fields) {
    bool ok = true;
    switch (index) {
      case 0: ok = field.get_int64().get(line) == simdjson::SUCCESS && line >= 1 && line <= 100'000'000; break;
      case 1: ok = field.get_int64().get(column) == simdjson::SUCCESS; break;
      case 2: ok = field.get_uint64().get(segment.count) == simdjson::SUCCESS; break;
      case 3: ok = field.get_bool().get(segment.has_count) == simdjson::SUCCESS; break;
      case 4: ok = field.get_bool().get(segment.is_region_entry) == simdjson::SUCCESS; break;
      case 5: ok = field.get_bool().get(segment.is_gap_region) == simdjson::SUCCESS; break;
      default: break;  // later export versions may add fields
    }
    if (!ok) return false;
    ++index;
  }
  segment.line = static_cast<int>(line);
  segment.column = static_cast<int>(column);
  return index >= 5;
}

}  // namespace

std::vector<int> executed_lines(const std::vector<CoverageSegment>& segments) {
  // Mirrors llvm::coverage::LineCoverageIterator / LineCoverageStats.
  std::vector<int> lines;
  if (segments.empty()) return lines;
  const CoverageSegment* wrapped = nullptr;
  std::vector<const CoverageSegment*> on_line;
  std::size_t next = 0;
  for (int line = segments.front().line; next < segments.size(); ++line) {
    if (!on_line.empty()) wrapped = on_line.back();
    on_line.clear();
    while (next < segments.size() && segments[next].line == line) on_line.push_back(&segments[next++]);
    if (next < segments.size() && segments[next].line < line) return lines;  // unsorted: stop, do not loop
    int region_starts = 0;
    for (const auto* segment : on_line) region_starts += is_region_start(*segment);
    const bool starts_skipped = !on_line.empty() && !on_line.front()->has_count && on_line.front()->is_region_entry;
    const bool mapped = !starts_skipped && ((wrapped != nullptr && wrapped->has_count) || region_starts > 0);
    if (!mapped) continue;
    std::uint64_t count = wrapped != nullptr ? wrapped->count : 0;
    if (region_starts > 0) {
      for (const auto* segment : on_line) {
        if (is_region_start(*segment)) count = std::max(count, segment->count);
      }
    }
    if (count > 0) lines.push_back(line);
  }
  return lines;
}

util::Status read_llvm_cov(const std::filesystem::path& file, EvidenceSink& sink, const LlvmCovOptions& options) {
  const std::string name = file.string();
  auto text = load_padded(file);
  if (!text) return text.error();
  simdjson::dom::parser parser;
  element document;
  if (const auto error = parser.parse(*text).get(document); error != simdjson::SUCCESS) {
    return util::Error{std::string("invalid JSON: ") + simdjson::error_message(error) + "; expected llvm-cov export JSON",
                       name, 1};
  }
  std::string_view type;
  if (document.at_key("type").get_string().get(type) != simdjson::SUCCESS || type != "llvm.coverage.json.export") {
    return shape_error(name, "type", "\"llvm.coverage.json.export\"");
  }
  array exports;
  if (document.at_key("data").get_array().get(exports) != simdjson::SUCCESS) return shape_error(name, "data", "an array");
  Run run;
  run.source_format = "llvm-cov";
  run.source_file = name;
  sink.begin_run(run);
  std::map<std::string, std::vector<int>> hit;
  std::size_t export_index = 0;
  for (element entry : exports) {
    array files;
    const std::string where = "data[" + std::to_string(export_index++) + "]";
    if (entry.at_key("files").get_array().get(files) != simdjson::SUCCESS) return shape_error(name, where + ".files", "an array");
    std::size_t file_index = 0;
    for (element source : files) {
      const std::string file_where = where + ".files[" + std::to_string(file_index++) + "]";
      std::string_view path;
      array raw_segments;
      if (source.at_key("filename").get_string().get(path) != simdjson::SUCCESS || path.empty()) {
        return shape_error(name, file_where + ".filename", "a source path");
      }
      if (source.at_key("segments").get_array().get(raw_segments) != simdjson::SUCCESS) {
        return shape_error(name, file_where + ".segments", "an array");
      }
      std::vector<CoverageSegment> segments;
      std::size_t segment_index = 0;
      for (element value : raw_segments) {
        CoverageSegment segment;
        if (!read_segment(value, segment)) {
          return shape_error(name, file_where + ".segments[" + std::to_string(segment_index) + "]",
                             "[line, col, count, hasCount, isRegionEntry, isGapRegion]");
        }
        if (!segments.empty() && (segment.line < segments.back().line ||
                                  (segment.line == segments.back().line && segment.column < segments.back().column))) {
          return shape_error(name, file_where + ".segments[" + std::to_string(segment_index) + "]",
                             "segments sorted by line and column");
        }
        segments.push_back(segment);
        ++segment_index;
      }
      auto lines = executed_lines(segments);
      auto& merged = hit[std::string(path)];
      merged.insert(merged.end(), lines.begin(), lines.end());
    }
  }
  TestEvidence test;
  test.test_id = options.test_id;
  for (auto& [path, lines] : hit) {
    if (!lines.empty()) test.coverage.push_back(FileCoverage{path, to_line_ranges(std::move(lines)), {}});
  }
  sink.add_test(std::move(test));
  return {};
}

util::Status read_llvm_cov(const std::filesystem::path& file, EvidenceSink& sink) {
  return read_llvm_cov(file, sink, LlvmCovOptions{});
}

bool sniff_llvm_cov(std::string_view head, const std::filesystem::path& file) {
  (void)file;
  const std::string text = inflate_head(head);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return false;
  // "type" comes last in llvm-cov's output, beyond a 4 KiB head: recognise the opening instead.
  return text.find("\"llvm.coverage.json.export\"") != std::string::npos ||
         std::string_view(text).substr(first).starts_with("{\"data\":[{\"files\":[");
}

}  // namespace fastci::evidence
