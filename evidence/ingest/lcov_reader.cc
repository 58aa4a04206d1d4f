#include "evidence/ingest/lcov_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "evidence/ingest/gcov_file_input.h"
#include "evidence/ingest/lcov_line_ranges.h"

namespace fastci::evidence {

namespace {

constexpr int kMaxWarningsPerFile = 100;

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> split(std::string_view text, std::size_t max_fields) {
  std::vector<std::string_view> fields;
  while (fields.size() + 1 < max_fields) {
    const auto comma = text.find(',');
    if (comma == std::string_view::npos) break;
    fields.push_back(text.substr(0, comma));
    text.remove_prefix(comma + 1);
  }
  fields.push_back(text);
  return fields;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<long long> parse_integer(std::string_view text) {
  long long value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

/// An execution count as lcov writes it: an integer, or a decimal/scientific number for huge counts.
struct Count {
  double value = 0;
  std::string problem;  // empty when the text is a valid count
};

Count parse_count(std::string_view text) {
  if (!text.empty() && text.front() == '-') {
    return {0, "negative count '" + std::string(text) + "'; expected a count >= 0"};
  }
  // digits [. digits] [e|E [+|-] digits]
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > from;
  };
  bool ok = digits();
  if (ok && i < text.size() && text[i] == '.') {
    ++i;
    ok = digits();
  }
  if (ok && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    ok = digits();
  }
  if (!ok || i != text.size()) {
    return {0, "malformed count '" + std::string(text) + "'; expected a non-negative number"};
  }
  return {std::strtod(std::string(text).c_str(), nullptr), {}};
}

struct Function {
  std::string name;
  int start = 0;
  int end = 0;  // 0: the tracefile does not say (lcov 1.x)
  int source_line = 0;
  std::optional<double> calls;
  int calls_line = 0;
};

struct LineRecord {
  double count = 0;
  int source_line = 0;
};

struct BranchSummary {
  int taken_entries = 0;     // entries with a count > 0
  int zero_entries = 0;      // evaluated, never taken
  int unevaluated = 0;       // "-"
  int first_taken_line = 0;  // tracefile line of the first taken entry
  int total = 0;
  int hit_entries = 0;       // entries with a count > 0, exception edges included (what BRH counts)
};

struct Summary {
  long long value = -1;
  int source_line = 0;
};

/// Everything between one SF: and its end_of_record.
struct FileRecord {
  std::string path;
  int sf_line = 0;
  std::vector<Function> functions;
  std::map<long long, std::size_t> function_by_index;  // FNL index
  std::unordered_map<int, std::size_t> first_with_end;  // start line -> first function with an end line
  std::vector<std::pair<std::string, std::pair<double, int>>> function_calls;  // FNDA name, count, line
  std::map<int, LineRecord> lines;
  std::map<int, BranchSummary> branches;
  Summary lines_found, lines_hit, branches_found, branches_hit;
};

class LcovParser {
 public:
  LcovParser(const std::filesystem::path& file, EvidenceSink& sink, const LcovOptions& options)
      : file_(file.string()), sink_(sink), options_(options) {}

  util::Status run() {
    auto input = LineInput::open(file_);
    if (!input) return input.error();
    Run run;
    run.source_format = "lcov";
    run.source_file = file_;
    sink_.begin_run(run);
    std::string_view line;
    while ((*input)->next(line)) {
      line_ = (*input)->line_number();
      if (auto status = parse_line(line); !status) return status;
    }
    if ((*input)->error()) return *(*input)->error();
    if (record_) {
      return error(line_ + 1, "end of file inside the record for '" + record_->path +
                                  "' (SF at line " + std::to_string(record_->sf_line) +
                                  "); expected end_of_record");
    }
    if (!saw_record_) {
      return error(line_, "no SF record in the file; expected an lcov tracefile (TN:, SF:, DA:, end_of_record)");
    }
    flush_warnings_summary();
    emit();
    return {};
  }

 private:
  util::Error error(int line, std::string message) const { return util::Error{std::move(message), file_, line}; }

  void warn(int line, std::string message) {
    if (++warnings_ <= kMaxWarningsPerFile) sink_.warn(Warning{file_, line, std::move(message)});
  }

  void flush_warnings_summary() {
    if (warnings_ > kMaxWarningsPerFile) {
      sink_.warn(Warning{file_, 0,
                         std::to_string(warnings_ - kMaxWarningsPerFile) + " more inconsistencies not listed"});
    }
  }

  util::Status parse_line(std::string_view raw) {
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') return {};
    if (line == "end_of_record") return end_record();
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      return error(line_, "unexpected text '" + std::string(line.substr(0, 40)) +
                              "'; expected an lcov record such as SF:, DA: or end_of_record");
    }
    const std::string_view key = line.substr(0, colon);
    const std::string_view value = line.substr(colon + 1);
    if (key == "TN") {
      if (record_) return error(line_, "TN: inside the record for '" + record_->path + "'; expected end_of_record first");
      test_ = std::string(trim(value));
      return {};
    }
    if (key == "SF") return start_record(trim(value));
    if (!record_) {
      return error(line_, std::string(key) + ": outside a file record; expected SF: first");
    }
    if (key == "DA") return parse_da(value);
    if (key == "FN") return parse_fn(value);
    if (key == "FNDA") return parse_fnda(value);
    if (key == "FNL") return parse_fnl(value);
    if (key == "FNA") return parse_fna(value);
    if (key == "BRDA") return parse_brda(value);
    if (key == "LF") return parse_summary(value, record_->lines_found);
    if (key == "LH") return parse_summary(value, record_->lines_hit);
    if (key == "BRF") return parse_summary(value, record_->branches_found);
    if (key == "BRH") return parse_summary(value, record_->branches_hit);
    if (key == "VER" || key == "FNF" || key == "FNH" || key == "MCDC" || key == "MCF" || key == "MCH") {
      return {};  // versions, function totals (alias rules differ by lcov version), MC/DC: not used
    }
    return error(line_, "unknown record '" + std::string(key.substr(0, 40)) +
                            ":'; expected one of TN, SF, VER, FN, FNDA, FNL, FNA, FNF, FNH, DA, LF, LH, "
                            "BRDA, BRF, BRH, MCDC, MCF, MCH, end_of_record");
  }

  util::Status start_record(std::string_view path) {
    if (record_) {
      return error(line_, "SF: inside the record for '" + record_->path + "' (SF at line " +
                              std::to_string(record_->sf_line) + "); expected end_of_record first");
    }
    if (path.empty()) return error(line_, "empty file name in SF:; expected SF:<source file path>");
    record_.emplace();
    record_->path = std::string(path);
    record_->sf_line = line_;
    saw_record_ = true;
    return {};
  }

  std::optional<util::Error> line_number(std::string_view text, const char* what, int& out) const {
    const auto value = parse_integer(trim(text));
    if (!value) return error(line_, std::string("malformed ") + what + " '" + std::string(text) + "'; expected a line number");
    if (*value < 1 || *value > 100'000'000) {
      return error(line_, std::string(what) + " " + std::to_string(*value) + " out of range; expected a line number >= 1");
    }
    out = static_cast<int>(*value);
    return std::nullopt;
  }

  util::Status parse_da(std::string_view value) {
    const auto fields = split(value, 3);  // line,count[,checksum]
    if (fields.size() < 2) return error(line_, "DA:" + std::string(value) + "; expected DA:<line>,<count>[,<checksum>]");
    int line = 0;
    if (auto problem = line_number(fields[0], "DA line", line)) return *problem;
    const Count count = parse_count(trim(fields[1]));
    if (!count.problem.empty()) return error(line_, "DA: " + count.problem);
    auto& record = record_->lines[line];
    record.count += count.value;
    if (record.source_line == 0) record.source_line = line_;
    return {};
  }

  util::Status parse_fn(std::string_view value) {
    // lcov 1.x: FN:<start>,<name>; lcov 2.x: FN:<start>,<end>,<name> (names may contain commas)
    auto fields = split(value, 2);
    if (fields.size() < 2 || trim(fields[1]).empty()) {
      return error(line_, "FN:" + std::string(value) + "; expected FN:<line>[,<end line>],<function name>");
    }
    Function function;
    if (auto problem = line_number(fields[0], "FN start line", function.start)) return *problem;
    std::string_view rest = fields[1];
    const auto comma = rest.find(',');
    if (comma != std::string_view::npos && all_digits(rest.substr(0, comma))) {
      if (auto problem = line_number(rest.substr(0, comma), "FN end line", function.end)) return *problem;
      if (function.end < function.start) {
        // lcov accepts this with --ignore inconsistent (its b.info fixture has FN:5,2,fcn2).
        warn(line_, "FN end line " + std::to_string(function.end) + " before start line " +
                        std::to_string(function.start) + "; end line ignored");
        function.end = 0;
      }
      rest.remove_prefix(comma + 1);
    }
    function.name = std::string(trim(rest));
    if (function.name.empty()) return error(line_, "FN without a function name; expected FN:<line>[,<end line>],<name>");
    function.source_line = line_;
    return add_function(std::move(function));
  }

  util::Status add_function(Function function) {
    if (function.end != 0) {
      const auto [first, inserted] = record_->first_with_end.try_emplace(function.start, record_->functions.size());
      const Function& other = record_->functions.size() > first->second ? record_->functions[first->second] : function;
      if (!inserted && other.end != function.end) {
        return error(line_, "function '" + function.name + "' starts at line " + std::to_string(function.start) +
                                " like '" + other.name + "' (line " + std::to_string(other.source_line) +
                                ") but ends at line " + std::to_string(function.end) + ", not " +
                                std::to_string(other.end) + "; expected aliases to share their end line");
      }
    }
    record_->functions.push_back(std::move(function));
    return {};
  }

  util::Status parse_fnda(std::string_view value) {
    const auto fields = split(value, 2);
    if (fields.size() < 2 || trim(fields[1]).empty()) {
      return error(line_, "FNDA:" + std::string(value) + "; expected FNDA:<count>,<function name>");
    }
    const Count count = parse_count(trim(fields[0]));
    if (!count.problem.empty()) return error(line_, "FNDA: " + count.problem);
    record_->function_calls.push_back({std::string(trim(fields[1])), {count.value, line_}});
    return {};
  }

  util::Status parse_fnl(std::string_view value) {
    // lcov 2.2: FNL:<index>,<start>[,<end>]
    const auto fields = split(value, 3);
    const auto index = parse_integer(trim(fields[0]));
    if (fields.size() < 2 || !index || *index < 0) {
      return error(line_, "FNL:" + std::string(value) + "; expected FNL:<index>,<start line>[,<end line>]");
    }
    Function function;
    if (auto problem = line_number(fields[1], "FNL start line", function.start)) return *problem;
    if (fields.size() == 3) {
      if (auto problem = line_number(fields[2], "FNL end line", function.end)) return *problem;
      if (function.end < function.start) return error(line_, "FNL end line before start line");
    }
    function.source_line = line_;
    record_->function_by_index[*index] = record_->functions.size();
    record_->functions.push_back(std::move(function));
    return {};
  }

  util::Status parse_fna(std::string_view value) {
    // lcov 2.2: FNA:<index>,<count>,<name>
    const auto fields = split(value, 3);
    const auto index = parse_integer(fields.empty() ? std::string_view() : trim(fields[0]));
    if (fields.size() < 3 || !index || trim(fields[2]).empty()) {
      return error(line_, "FNA:" + std::string(value) + "; expected FNA:<index>,<count>,<name>");
    }
    const auto found = record_->function_by_index.find(*index);
    if (found == record_->function_by_index.end()) {
      return error(line_, "FNA index " + std::to_string(*index) + " has no FNL record; expected FNL:<index>,... first");
    }
    const Count count = parse_count(trim(fields[1]));
    if (!count.problem.empty()) return error(line_, "FNA: " + count.problem);
    Function alias = record_->functions[found->second];
    alias.name = std::string(trim(fields[2]));
    alias.calls = count.value;
    alias.calls_line = line_;
    if (record_->functions[found->second].name.empty()) {
      record_->functions[found->second] = std::move(alias);
    } else {
      record_->functions.push_back(std::move(alias));
    }
    return {};
  }

  util::Status parse_brda(std::string_view value) {
    // BRDA:<line>,<block>,<branch>,<taken>; lcov 2 allows exception blocks "e0" and branch
    // expressions that contain commas, so the taken count is the last field.
    const auto last = value.rfind(',');
    const auto fields = split(value, 3);
    if (fields.size() < 3 || fields[2].find(',') == std::string_view::npos) {
      return error(line_, "BRDA:" + std::string(value) + "; expected BRDA:<line>,<block>,<branch>,<taken>");
    }
    int line = 0;
    if (auto problem = line_number(fields[0], "BRDA line", line)) return *problem;
    const std::string_view block = trim(fields[1]);
    const bool exception = !block.empty() && block.front() == 'e';
    if (!all_digits(exception ? block.substr(1) : block)) {
      return error(line_, "BRDA block '" + std::string(block) + "'; expected a block number (or e<number>)");
    }
    const std::string_view taken = trim(value.substr(last + 1));
    auto& branch = record_->branches[line];
    ++branch.total;
    if (taken == "-") {
      ++branch.unevaluated;
      return {};
    }
    const Count count = parse_count(taken);
    if (!count.problem.empty()) return error(line_, "BRDA: " + count.problem);
    if (count.value > 0) ++branch.hit_entries;
    if (exception) return {};  // exception edges say nothing about the line's normal flow
    if (count.value > 0) {
      if (branch.taken_entries++ == 0) branch.first_taken_line = line_;
    } else {
      ++branch.zero_entries;
    }
    return {};
  }

  util::Status parse_summary(std::string_view value, Summary& summary) {
    const auto number = parse_integer(trim(value));
    if (!number || *number < 0) return error(line_, "malformed total '" + std::string(value) + "'; expected a count >= 0");
    summary = Summary{*number, line_};
    return {};
  }

  util::Status end_record() {
    if (!record_) return error(line_, "end_of_record without a record; expected SF: first");
    FileRecord& record = *record_;
    // Every FNDA must name a function of this record (lcov: "unknown function").
    std::unordered_map<std::string_view, std::size_t> by_name;
    for (std::size_t i = 0; i < record.functions.size(); ++i) by_name.try_emplace(record.functions[i].name, i);
    for (const auto& entry : record.function_calls) {
      const std::string& name = entry.first;
      const auto [count, line] = entry.second;
      const auto found = by_name.find(name);
      if (found == by_name.end()) {
        return error(line, "FNDA for function '" + name + "' which has no FN record in the record for '" +
                               record.path + "'; expected FN:<line>,...," + name + " first");
      }
      Function& function = record.functions[found->second];
      function.calls = function.calls.value_or(0) + count;
      function.calls_line = line;
    }
    check_consistency(record);
    auto& hit = coverage_[test_.empty() ? options_.default_test_id : test_][record.path];
    for (const auto& [line, data] : record.lines) {
      if (data.count > 0) hit.push_back(line);
    }
    record_.reset();
    return {};
  }

  void check_consistency(const FileRecord& record) {
    int lines_hit = 0;
    for (const auto& [line, data] : record.lines) lines_hit += data.count > 0;
    check_total(record.lines_found, static_cast<long long>(record.lines.size()), "LF", "DA lines");
    check_total(record.lines_hit, lines_hit, "LH", "DA lines with a count > 0");
    int branches = 0, taken = 0;
    for (const auto& [line, branch] : record.branches) {
      branches += branch.total;
      taken += branch.hit_entries;
    }
    check_total(record.branches_found, branches, "BRF", "BRDA entries");
    check_total(record.branches_hit, taken, "BRH", "BRDA entries with a count > 0");
    for (const auto& [line, branch] : record.branches) {
      const auto da = record.lines.find(line);
      if (da == record.lines.end()) continue;
      if (branch.taken_entries > 0 && da->second.count == 0) {
        warn(branch.first_taken_line, "branch on line " + std::to_string(line) +
                                          " was taken but DA says the line never ran");
      }
      // No check for "line ran, no branch taken": gcov counts call-throw edges as branches that
      // lcov 1.x does not mark, so real tracefiles (googletest's gtest.cc:597) look like that.
    }
    for (const auto& function : record.functions) {
      if (function.end == 0 || !function.calls) continue;
      if (alias_ran(record, function)) continue;
      const auto first = record.lines.lower_bound(function.start);
      const auto last = record.lines.upper_bound(function.end);
      if (first == last) continue;
      const bool any_hit = std::any_of(first, last, [](const auto& entry) { return entry.second.count > 0; });
      if (*function.calls > 0 && !any_hit) {
        warn(function.calls_line, "function '" + function.name + "' ran " + format_count(*function.calls) +
                                      " times but none of its lines " + std::to_string(function.start) + "-" +
                                      std::to_string(function.end) + " did");
      } else if (*function.calls == 0 && any_hit && !hit_line_in_other_function(record, function, first, last)) {
        warn(function.calls_line, "function '" + function.name + "' never ran but a line inside it (" +
                                      std::to_string(function.start) + "-" + std::to_string(function.end) + ") did");
      }
    }
  }

  /// Whether another name for the same function (same start and end line) ran while this one
  /// did not: lcov lists aliases (C1/C2 constructors, `alias` in lcov's own tests) separately.
  static bool alias_ran(const FileRecord& record, const Function& function) {
    if (function.calls.value_or(0) > 0) return false;
    return std::any_of(record.functions.begin(), record.functions.end(), [&](const Function& f) {
      return &f != &function && f.start == function.start && f.end == function.end && f.calls.value_or(0) > 0;
    });
  }

  /// Whether every hit line inside `outer` belongs to another function that ran (a lambda, say).
  static bool hit_line_in_other_function(const FileRecord& record, const Function& outer,
                                         std::map<int, LineRecord>::const_iterator first,
                                         std::map<int, LineRecord>::const_iterator last) {
    for (auto it = first; it != last; ++it) {
      if (it->second.count == 0) continue;
      const bool explained = std::any_of(record.functions.begin(), record.functions.end(), [&](const Function& f) {
        return &f != &outer && f.calls.value_or(0) > 0 && f.start <= it->first && it->first <= f.end &&
               f.start >= outer.start && f.end <= outer.end && (f.start != outer.start || f.end != outer.end);
      });
      if (!explained) return false;
    }
    return true;
  }

  void check_total(const Summary& summary, long long actual, const char* key, const char* what) {
    if (summary.value >= 0 && summary.value != actual) {
      warn(summary.source_line, std::string(key) + ":" + std::to_string(summary.value) + " but the record has " +
                                    std::to_string(actual) + " " + what);
    }
  }

  static std::string format_count(double count) {
    if (count < 1e15) return std::to_string(static_cast<long long>(count));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", count);
    return buffer;
  }

  void emit() {
    for (auto& [test, files] : coverage_) {
      TestEvidence evidence;
      evidence.test_id = test;
      for (auto& [path, lines] : files) {
        if (lines.empty()) continue;
        evidence.coverage.push_back(FileCoverage{path, to_line_ranges(std::move(lines)), {}});
      }
      sink_.add_test(std::move(evidence));
    }
  }

  std::string file_;
  EvidenceSink& sink_;
  const LcovOptions& options_;
  int line_ = 0;
  int warnings_ = 0;
  bool saw_record_ = false;
  std::string test_;
  std::optional<FileRecord> record_;
  std::map<std::string, std::map<std::string, std::vector<int>>> coverage_;
};

}  // namespace

util::Status read_lcov(const std::filesystem::path& file, EvidenceSink& sink, const LcovOptions& options) {
  return LcovParser(file, sink, options).run();
}

util::Status read_lcov(const std::filesystem::path& file, EvidenceSink& sink) {
  return read_lcov(file, sink, LcovOptions{});
}

bool sniff_lcov(std::string_view head, const std::filesystem::path& file) {
  const std::string text = inflate_head(head);
  // The first record line decides: lcov files start with comments, TN:, SF: or (lcov 2) VER:.
  std::size_t position = 0;
  while (position < text.size()) {
    auto end = text.find('\n', position);
    if (end == std::string::npos) end = text.size();
    const std::string_view line = trim(std::string_view(text).substr(position, end - position));
    position = end + 1;
    if (line.empty() || line.front() == '#') continue;
    return line.starts_with("TN:") || line.starts_with("SF:") || line.starts_with("VER:");
  }
  (void)file;
  return false;
}

}  // namespace fastci::evidence
