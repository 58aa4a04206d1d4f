#include "evidence/ingest/gcov_json_reader.h"

#include <map>
#include <vector>

#include "evidence/ingest/gcov_file_input.h"
#include "evidence/ingest/gcov_json_document.h"
#include "evidence/ingest/lcov_line_ranges.h"

namespace fastci::evidence {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

util::Error shape_error(const std::string& file, int document_line, const std::string& where, const char* expected) {
  return util::Error{where + ": expected " + expected + " (gcov --json-format)", file, document_line};
}

/// Adds the executed lines of one gcov JSON document to `hit`.
util::Status read_document(element document, const std::string& file, int line,
                           std::map<std::string, std::vector<int>>& hit) {
  object root;
  if (document.get_object().get(root) != simdjson::SUCCESS) return shape_error(file, line, "document", "a JSON object");
  std::string_view version;
  if (root.at_key("format_version").get_string().get(version) != simdjson::SUCCESS) {
    return shape_error(file, line, "format_version", "a string (gcov 9 or newer)");
  }
  array files;
  if (root.at_key("files").get_array().get(files) != simdjson::SUCCESS) return shape_error(file, line, "files", "an array");
  std::size_t file_index = 0;
  for (element entry : files) {
    const std::string where = "files[" + std::to_string(file_index++) + "]";
    std::string_view path;
    array lines;
    if (entry.at_key("file").get_string().get(path) != simdjson::SUCCESS || path.empty()) {
      return shape_error(file, line, where + ".file", "a source path");
    }
    if (entry.at_key("lines").get_array().get(lines) != simdjson::SUCCESS) {
      return shape_error(file, line, where + ".lines", "an array");
    }
    auto& executed = hit[std::string(path)];
    std::size_t line_index = 0;
    for (element record : lines) {
      int64_t number = 0;
      double count = 0;  // gcov writes counts as integers; be lenient with huge ones
      if (record.at_key("line_number").get_int64().get(number) != simdjson::SUCCESS || number < 1 || number > 100'000'000) {
        return shape_error(file, line, where + ".lines[" + std::to_string(line_index) + "].line_number", "a line number >= 1");
      }
      if (record.at_key("count").get_double().get(count) != simdjson::SUCCESS || count < 0) {
        return shape_error(file, line, where + ".lines[" + std::to_string(line_index) + "].count", "a count >= 0");
      }
      if (count > 0) executed.push_back(static_cast<int>(number));
      ++line_index;
    }
  }
  return {};
}

}  // namespace

util::Status read_gcov_json(const std::filesystem::path& file, EvidenceSink& sink, const GcovJsonOptions& options) {
  const std::string name = file.string();
  auto text = load_padded(file);
  if (!text) return text.error();
  Run run;
  run.source_format = "gcov-json";
  run.source_file = name;
  sink.begin_run(run);
  // `gcov --stdout --json-format a.cc b.cc` writes one document per line: read them all.
  simdjson::dom::parser parser;
  simdjson::dom::document_stream stream;
  if (const auto error = parser.parse_many(*text, std::max<std::size_t>(text->size(), simdjson::dom::MINIMAL_BATCH_SIZE)).get(stream);
      error != simdjson::SUCCESS) {
    return util::Error{std::string("invalid JSON: ") + simdjson::error_message(error), name, 1};
  }
  std::map<std::string, std::vector<int>> hit;
  int documents = 0;
  for (auto it = stream.begin(); it != stream.end(); ++it) {
    const int line = line_at(*text, it.current_index());
    element document;
    if (const auto error = (*it).get(document); error != simdjson::SUCCESS) {
      return util::Error{std::string("invalid JSON: ") + simdjson::error_message(error) + "; expected gcov JSON", name, line};
    }
    if (auto status = read_document(document, name, line, hit); !status) return status;
    ++documents;
  }
  if (stream.truncated_bytes() > 0) {
    return util::Error{"unterminated or malformed JSON document; expected gcov JSON", name,
                       line_at(*text, text->size() - stream.truncated_bytes())};
  }
  if (documents == 0) return util::Error{"no JSON document; expected gcov --json-format output", name, 1};
  TestEvidence test;
  test.test_id = options.test_id;
  for (auto& [path, lines] : hit) {
    if (!lines.empty()) test.coverage.push_back(FileCoverage{path, to_line_ranges(std::move(lines)), {}});
  }
  sink.add_test(std::move(test));
  return {};
}

util::Status read_gcov_json(const std::filesystem::path& file, EvidenceSink& sink) {
  return read_gcov_json(file, sink, GcovJsonOptions{});
}

bool sniff_gcov_json(std::string_view head, const std::filesystem::path& file) {
  (void)file;
  const std::string text = inflate_head(head);
  const auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{' && text.find("\"gcc_version\"") != std::string::npos &&
         (text.find("\"format_version\"") != std::string::npos || text.find("\"files\"") != std::string::npos);
}

}  // namespace fastci::evidence
