#include "evidence/store/sql_store.h"

#include <chrono>
#include <ctime>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "evidence/store/coverage_codec.h"
#include "evidence/store/schema.h"

namespace fastci::evidence {

namespace {

/// How many times an ingest that lost a deadlock or lock race is run again from the start.
constexpr int kIngestAttempts = 20;

std::string now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string strip_root(const std::string& text, const std::string& root) {
  if (root.empty() || text.size() < root.size() || text.compare(0, root.size(), root) != 0) return text;
  std::string rest = text.substr(root.size());
  while (!rest.empty() && rest.front() == '/') rest.erase(rest.begin());
  return rest;
}

std::string to_json_array(const std::vector<std::string>& items) { return nlohmann::json(items).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

std::vector<std::string> from_json_array(const std::string& text) {
  std::vector<std::string> items;
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_array()) return items;
  for (const auto& item : parsed) {
    if (item.is_string()) items.push_back(item.get<std::string>());
  }
  return items;
}

SqlValue optional_text(const std::string& text) {
  if (text.empty()) return std::monostate{};
  return text;
}

/// Writes one ingest's evidence inside the caller's open write transaction. The first database
/// error is kept and every later call ignored, so the caller can roll back and report it.
class StoreSink final : public EvidenceSink {
 public:
  StoreSink(SqlConnection& db, const IngestOptions& options, std::string source_format, std::string source_file)
      : db_(db), options_(options), source_format_(std::move(source_format)), source_file_(std::move(source_file)) {}

  void begin_run(const Run& run) override {
    if (failed() || run_id_ != 0) return;
    create_run(run);
  }

  void add_test(TestEvidence&& test) override {
    if (failed()) return;
    if (run_id_ == 0) create_run(Run{});
    if (failed()) return;
    std::int64_t test_row = intern("tests", "name", test.test_id, test_ids_);
    if (failed()) return;
    seen_tests_.insert(test.test_id);
    write_result(test_row, test);
    for (const auto& [knob, value] : test.knobs) write_knob(test_row, knob, value);
    for (FileCoverage& coverage : test.coverage) write_coverage(test_row, coverage);
    for (ExecutionContext& context : test.contexts) write_context(test_row, context);
    for (const KernelLaunch& kernel : test.kernels) write_kernel(test_row, kernel);
  }

  void warn(Warning warning) override { result_.warnings.push_back(std::move(warning)); }

  /// Makes sure a run exists even for a file with no tests.
  void finish() {
    if (!failed() && run_id_ == 0) create_run(Run{});
    result_.run_id = run_id_;
    result_.tests = seen_tests_.size();
    result_.files = seen_files_.size();
  }

  bool failed() const { return error_.has_value(); }
  const util::Error& error() const { return *error_; }
  IngestResult& result() { return result_; }

 private:
  bool run_sql(const std::string& sql, const std::vector<SqlValue>& parameters,
               const std::function<void(const SqlRow&)>& on_row = {}) {
    if (failed()) return false;
    util::Status status = db_.query(sql, parameters, on_row);
    if (!status) error_ = status.error();
    return status.ok();
  }

  void create_run(Run run) {
    if (!options_.commit.empty()) run.commit = options_.commit;
    if (!options_.runner.empty()) run.runner = options_.runner;
    if (!options_.started_at.empty()) run.started_at = options_.started_at;
    if (run.source_format.empty()) run.source_format = source_format_;
    if (run.source_file.empty()) run.source_file = source_file_;
    if (run.started_at.empty()) run.started_at = now_iso8601();
    if (!options_.run_name.empty()) {
      run_sql("SELECT id FROM runs WHERE name = ?", {options_.run_name},
              [&](const SqlRow& row) { run_id_ = sql_int(row[0]); });
      if (run_id_ != 0) {
        // A named run collects several files: fill what earlier files did not know.
        run_sql("UPDATE runs SET commit_sha = CASE WHEN commit_sha = '' THEN ? ELSE commit_sha END, "
                "runner = CASE WHEN runner = '' THEN ? ELSE runner END, "
                "environment = CASE WHEN environment = '' THEN ? ELSE environment END WHERE id = ?",
                {run.commit, run.runner, run.environment, run_id_});
        run_is_new_ = false;
        return;
      }
    }
    run_sql("INSERT INTO runs (name, commit_sha, started_at, runner, environment, source_format, source_file, "
            "ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            {optional_text(options_.run_name), run.commit, run.started_at, run.runner, run.environment,
             run.source_format, run.source_file, now_iso8601()},
            [&](const SqlRow& row) { run_id_ = sql_int(row[0]); });
    run_is_new_ = true;
    if (!failed() && run_id_ == 0) error_ = util::Error{"could not create a run", db_.location(), 0};
  }

  std::int64_t intern(const char* table, const char* column, const std::string& value,
                      std::unordered_map<std::string, std::int64_t>& cache) {
    auto found = cache.find(value);
    if (found != cache.end()) return found->second;
    std::string t = table, c = column;
    std::int64_t id = 0;
    run_sql("INSERT INTO " + t + " (" + c + ") VALUES (?) ON CONFLICT (" + c + ") DO NOTHING", {value});
    run_sql("SELECT id FROM " + t + " WHERE " + c + " = ?", {value},
            [&](const SqlRow& row) { id = sql_int(row[0]); });
    if (!failed() && id == 0) error_ = util::Error{"could not intern " + value, db_.location(), 0};
    cache.emplace(value, id);
    return id;
  }

  void write_result(std::int64_t test_row, const TestEvidence& test) {
    SqlValue outcome = test.outcome ? SqlValue{std::string(to_string(*test.outcome))} : SqlValue{};
    SqlValue duration = test.duration_seconds ? SqlValue{*test.duration_seconds} : SqlValue{};
    // A later report of the same test fills in or replaces what it knows; unknown fields keep the old value.
    run_sql("INSERT INTO results (run_id, test_id, outcome, duration, gpus, message) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (run_id, test_id) DO UPDATE SET "
            "outcome = COALESCE(excluded.outcome, results.outcome), "
            "duration = COALESCE(excluded.duration, results.duration), "
            "gpus = CASE WHEN excluded.gpus > 0 THEN excluded.gpus ELSE results.gpus END, "
            "message = CASE WHEN excluded.message <> '' THEN excluded.message ELSE results.message END",
            {run_id_, test_row, outcome, duration, std::int64_t{test.gpus}, test.message});
  }

  void write_knob(std::int64_t test_row, const std::string& knob, const std::string& value) {
    run_sql("INSERT INTO knob_values (run_id, test_id, knob, value) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (run_id, test_id, knob) DO UPDATE SET value = excluded.value",
            {run_id_, test_row, knob, value});
  }

  void write_coverage(std::int64_t test_row, FileCoverage& coverage) {
    std::string path = strip_root(coverage.path, options_.root);
    std::vector<LineRange> lines = normalize_ranges(std::move(coverage.lines));
    std::vector<Arc> arcs = normalize_arcs(std::move(coverage.arcs));
    if (lines.empty() && arcs.empty()) return;
    std::int64_t file_row = intern("files", "path", path, file_ids_);
    if (failed()) return;
    seen_files_.insert(path);
    // Merge with what this run already holds (another file of the run, or an earlier record here).
    bool may_exist = !run_is_new_ || written_.count({test_row, file_row}) > 0;
    if (may_exist) {
      run_sql("SELECT lines, arcs FROM coverage WHERE run_id = ? AND test_id = ? AND file_id = ?",
              {run_id_, test_row, file_row}, [&](const SqlRow& row) {
                if (auto old_lines = decode_lines(sql_text(row[0]))) lines = merge_ranges(lines, *old_lines);
                if (auto old_arcs = decode_arcs(sql_text(row[1]))) {
                  arcs.insert(arcs.end(), old_arcs->begin(), old_arcs->end());
                }
              });
    }
    written_.insert({test_row, file_row});
    ++result_.coverage_rows;
    // Rows with only arcs still get a line span, so the range index finds them.
    int first = 0, last = 0;
    if (!lines.empty()) {
      first = lines.front().first;
      last = lines.back().second;
    } else {
      for (const Arc& arc : arcs) {
        for (int line : {arc.first, arc.second}) {
          if (line <= 0) continue;
          first = first == 0 ? line : std::min(first, line);
          last = std::max(last, line);
        }
      }
    }
    run_sql("INSERT INTO coverage (run_id, test_id, file_id, first_line, last_line, lines, arcs) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, test_id, file_id) DO UPDATE SET "
            "first_line = excluded.first_line, last_line = excluded.last_line, lines = excluded.lines, "
            "arcs = excluded.arcs",
            {run_id_, test_row, file_row, std::int64_t{first}, std::int64_t{last}, SqlBlob{encode_lines(lines)},
             SqlBlob{encode_arcs(arcs)}});
  }

  void write_context(std::int64_t test_row, ExecutionContext& context) {
    context.function = strip_root(context.function, options_.root);
    for (std::string& caller : context.callers) caller = strip_root(caller, options_.root);
    ++result_.contexts;
    run_sql("INSERT INTO contexts (run_id, test_id, function, context_key, callers, arguments, arcs, count) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, test_id, function, context_key) "
            "DO UPDATE SET count = contexts.count + excluded.count",
            {run_id_, test_row, context.function, context.key(), to_json_array(context.callers), context.arguments,
             SqlBlob{encode_arcs(context.arcs)}, static_cast<std::int64_t>(context.count)});
  }

  void write_kernel(std::int64_t test_row, const KernelLaunch& kernel) {
    ++result_.kernels;
    run_sql("INSERT INTO kernels (run_id, test_id, name, grid, block, shared_memory, template_arguments, count, "
            "total_duration_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT "
            "(run_id, test_id, name, grid, block, shared_memory, template_arguments) DO UPDATE SET "
            "count = kernels.count + excluded.count, "
            "total_duration_us = kernels.total_duration_us + excluded.total_duration_us",
            {run_id_, test_row, kernel.name, kernel.grid, kernel.block,
             static_cast<std::int64_t>(kernel.shared_memory), to_json_array(kernel.template_arguments),
             static_cast<std::int64_t>(kernel.count), kernel.total_duration_us});
  }

  struct PairHash {
    std::size_t operator()(const std::pair<std::int64_t, std::int64_t>& p) const {
      return std::hash<std::int64_t>()(p.first * 1000003 + p.second);
    }
  };

  SqlConnection& db_;
  const IngestOptions& options_;
  std::string source_format_;
  std::string source_file_;
  std::int64_t run_id_ = 0;
  bool run_is_new_ = true;
  std::optional<util::Error> error_;
  IngestResult result_;
  std::unordered_map<std::string, std::int64_t> test_ids_;
  std::unordered_map<std::string, std::int64_t> file_ids_;
  std::unordered_set<std::string> seen_tests_;
  std::unordered_set<std::string> seen_files_;
  std::unordered_set<std::pair<std::int64_t, std::int64_t>, PairHash> written_;
};

class SqlStore final : public Store {
 public:
  SqlStore(std::unique_ptr<SqlConnection> db, int schema_version)
      : db_(std::move(db)), schema_version_(schema_version) {}

  util::Result<IngestResult> ingest(const EvidenceProducer& producer, const std::string& source_format,
                                    const std::string& source_file, const IngestOptions& options) override {
    std::mt19937 jitter(std::random_device{}());
    for (int attempt = 1;; ++attempt) {
      util::Error failure;
      if (util::Status begun = db_->begin_write(); !begun) {
        failure = begun.error();
      } else {
        StoreSink sink(*db_, options, source_format, source_file);
        util::Status read = producer(sink);
        if (read && !sink.failed()) sink.finish();
        if (!read) {
          db_->rollback();
          return read.error();  // bad input: retrying cannot help
        }
        if (!sink.failed()) {
          util::Status committed = db_->commit();
          if (committed) return std::move(sink.result());
          failure = committed.error();
        } else {
          failure = sink.error();
        }
      }
      db_->rollback();
      if (attempt >= kIngestAttempts || !db_->retryable(failure)) return failure;
      std::this_thread::sleep_for(std::chrono::milliseconds(10 + jitter() % (20 * attempt)));
    }
  }

  util::Result<std::vector<CoveringTest>> tests_covering(const std::string& path, LineRange range,
                                                         bool include_outside_tests) override {
    std::vector<CoveringTest> found;
    util::Status status = db_->query(
        "SELECT t.name, c.run_id, r.commit_sha, r.started_at, c.lines FROM coverage c "
        "JOIN tests t ON t.id = c.test_id JOIN runs r ON r.id = c.run_id "
        "WHERE c.file_id = (SELECT id FROM files WHERE path = ?) AND c.first_line <= ? AND c.last_line >= ? "
        "ORDER BY r.started_at DESC, c.run_id DESC, t.name",
        {path, std::int64_t{range.second}, std::int64_t{range.first}}, [&](const SqlRow& row) {
          const std::string& test = sql_text(row[0]);
          if (test.empty() && !include_outside_tests) return;
          auto lines = decode_lines_in(sql_text(row[4]), range);
          if (!lines || lines->empty()) return;
          found.push_back(CoveringTest{test, sql_int(row[1]), sql_text(row[2]), sql_text(row[3]), std::move(*lines)});
        });
    if (!status) return status.error();
    return found;
  }

  util::Result<std::vector<StoredCoverage>> coverage_of(const std::string& test_id, bool all_runs) override {
    std::vector<StoredCoverage> found;
    std::int64_t newest_run = -1;
    util::Status status = db_->query(
        "SELECT c.run_id, r.commit_sha, f.path, c.lines, c.arcs FROM coverage c "
        "JOIN runs r ON r.id = c.run_id JOIN files f ON f.id = c.file_id "
        "WHERE c.test_id = (SELECT id FROM tests WHERE name = ?) ORDER BY r.started_at DESC, c.run_id DESC, f.path",
        {test_id}, [&](const SqlRow& row) {
          std::int64_t run = sql_int(row[0]);
          if (newest_run < 0) newest_run = run;
          if (!all_runs && run != newest_run) return;
          StoredCoverage item{run, sql_text(row[1]), FileCoverage{sql_text(row[2]), {}, {}}};
          if (auto lines = decode_lines(sql_text(row[3]))) item.coverage.lines = std::move(*lines);
          if (auto arcs = decode_arcs(sql_text(row[4]))) item.coverage.arcs = std::move(*arcs);
          found.push_back(std::move(item));
        });
    if (!status) return status.error();
    return found;
  }

  util::Result<std::vector<CoveredFile>> covered_files(const std::string& test_id) override {
    std::vector<CoveredFile> found;
    util::Status status = db_->query(
        "SELECT c.run_id, r.commit_sha, f.path FROM coverage c JOIN runs r ON r.id = c.run_id "
        "JOIN files f ON f.id = c.file_id WHERE c.test_id = (SELECT id FROM tests WHERE name = ?) "
        "ORDER BY r.started_at DESC, c.run_id DESC, f.path",
        {test_id}, [&](const SqlRow& row) { found.push_back({sql_int(row[0]), sql_text(row[1]), sql_text(row[2])}); });
    if (!status) return status.error();
    return found;
  }

  util::Result<std::vector<StoredContext>> contexts_of(const std::string& test_id,
                                                       const std::string& function_prefix) override {
    return select_contexts("x.test_id = (SELECT id FROM tests WHERE name = ?) AND ", {test_id}, function_prefix);
  }

  util::Result<std::vector<StoredContext>> contexts_for_function(const std::string& function_prefix) override {
    return select_contexts("", {}, function_prefix);
  }

  util::Result<std::vector<StoredKernel>> kernels_of(const std::string& test_id) override {
    return select_kernels("k.test_id = (SELECT id FROM tests WHERE name = ?)", {test_id});
  }

  util::Result<std::vector<StoredKernel>> tests_launching(const std::string& name_prefix) override {
    return select_kernels("k.name >= ? AND k.name < ?", {name_prefix, prefix_end(name_prefix)});
  }

  util::Result<std::vector<std::pair<std::string, std::uint64_t>>> kernel_names() override {
    std::vector<std::pair<std::string, std::uint64_t>> names;
    util::Status status = db_->query("SELECT name, SUM(count) FROM kernels GROUP BY name ORDER BY name", {},
                                     [&](const SqlRow& row) {
                                       names.emplace_back(sql_text(row[0]), static_cast<std::uint64_t>(sql_int(row[1])));
                                     });
    if (!status) return status.error();
    return names;
  }

  util::Result<std::vector<HistoryEntry>> history(const std::string& test_id) override {
    std::vector<HistoryEntry> entries;
    util::Status status = db_->query(
        "SELECT t.name, r.id, r.commit_sha, r.started_at, s.outcome, s.duration, s.gpus, s.message, s.test_id "
        "FROM results s JOIN runs r ON r.id = s.run_id JOIN tests t ON t.id = s.test_id "
        "WHERE s.test_id = (SELECT id FROM tests WHERE name = ?) ORDER BY r.started_at, r.id",
        {test_id}, [&](const SqlRow& row) { entries.push_back(history_entry(row)); });
    if (!status) return status.error();
    if (util::Status knobs = attach_knobs(entries, "k.test_id = (SELECT id FROM tests WHERE name = ?)", {test_id});
        !knobs) {
      return knobs.error();
    }
    return entries;
  }

  util::Result<std::vector<HistoryEntry>> latest_results() override {
    std::vector<HistoryEntry> entries;
    util::Status status = db_->query(
        "SELECT name, run_id, commit_sha, started_at, outcome, duration, gpus, message, test_id FROM ("
        " SELECT t.name, r.id AS run_id, r.commit_sha, r.started_at, s.outcome, s.duration, s.gpus, s.message,"
        " s.test_id, ROW_NUMBER() OVER (PARTITION BY s.test_id ORDER BY r.started_at DESC, r.id DESC) AS position"
        " FROM results s JOIN runs r ON r.id = s.run_id JOIN tests t ON t.id = s.test_id"
        " WHERE (s.outcome IS NOT NULL OR s.duration IS NOT NULL) AND t.name <> '') latest "
        "WHERE position = 1 ORDER BY name",
        {}, [&](const SqlRow& row) { entries.push_back(history_entry(row)); });
    if (!status) return status.error();
    if (util::Status knobs = attach_knobs(entries, "1 = 1", {}); !knobs) return knobs.error();
    return entries;
  }

  util::Result<std::vector<std::string>> all_tests() override {
    std::vector<std::string> names;
    util::Status status = db_->query("SELECT name FROM tests WHERE name <> '' ORDER BY name", {},
                                     [&](const SqlRow& row) { names.push_back(sql_text(row[0])); });
    if (!status) return status.error();
    return names;
  }

  util::Result<std::vector<RunInfo>> runs() override {
    std::vector<RunInfo> found;
    util::Status status = db_->query(
        "SELECT r.id, r.name, r.commit_sha, r.started_at, r.runner, r.environment, r.source_format, r.source_file, "
        "r.ingested_at, (SELECT COUNT(*) FROM results s WHERE s.run_id = r.id) FROM runs r ORDER BY r.id",
        {}, [&](const SqlRow& row) {
          RunInfo info;
          info.id = sql_int(row[0]);
          info.name = sql_text(row[1]);
          info.run = Run{sql_text(row[2]), sql_text(row[3]), sql_text(row[4]), sql_text(row[5]), sql_text(row[6]),
                         sql_text(row[7])};
          info.ingested_at = sql_text(row[8]);
          info.tests = sql_int(row[9]);
          found.push_back(std::move(info));
        });
    if (!status) return status.error();
    return found;
  }

  util::Status delete_run(std::int64_t run_id) override {
    if (util::Status begun = db_->begin_write(); !begun) return begun;
    for (const char* table : {"results", "coverage", "contexts", "kernels", "knob_values"}) {
      util::Status deleted = db_->query(std::string("DELETE FROM ") + table + " WHERE run_id = ?", {run_id});
      if (!deleted) {
        db_->rollback();
        return deleted;
      }
    }
    util::Status deleted = db_->query("DELETE FROM runs WHERE id = ?", {run_id});
    if (!deleted) {
      db_->rollback();
      return deleted;
    }
    return db_->commit();
  }

  util::Result<StoreStats> stats() override {
    StoreStats stats;
    stats.backend = db_->dialect();
    stats.location = db_->location();
    stats.schema_version = schema_version_;
    const std::pair<const char*, std::int64_t*> counts[] = {
        {"SELECT COUNT(*) FROM runs", &stats.runs},
        {"SELECT COUNT(*) FROM tests WHERE name <> ''", &stats.tests},
        {"SELECT COUNT(*) FROM files", &stats.files},
        {"SELECT COUNT(*) FROM results", &stats.results},
        {"SELECT COUNT(*) FROM coverage", &stats.coverage_rows},
        {"SELECT COUNT(*) FROM contexts", &stats.contexts},
        {"SELECT COUNT(*) FROM kernels", &stats.kernels},
        {"SELECT COUNT(*) FROM knob_values", &stats.knob_values},
    };
    for (const auto& [sql, target] : counts) {
      util::Status status = db_->query(sql, {}, [&](const SqlRow& row) { *target = sql_int(row[0]); });
      if (!status) return status.error();
    }
    stats.bytes = db_->size_bytes();
    return stats;
  }

 private:
  /// A string greater than every string starting with `prefix`, for index range scans: the prefix
  /// followed by U+10FFFF, the largest code point, so the bound is valid UTF-8 for PostgreSQL.
  static std::string prefix_end(const std::string& prefix) { return prefix + "\xf4\x8f\xbf\xbf"; }

  util::Result<std::vector<StoredContext>> select_contexts(const std::string& test_filter,
                                                           std::vector<SqlValue> parameters,
                                                           const std::string& function_prefix) {
    std::vector<StoredContext> found;
    parameters.emplace_back(std::in_place_type<std::string>, function_prefix);
    parameters.emplace_back(std::in_place_type<std::string>, prefix_end(function_prefix));
    util::Status status = db_->query(
        "SELECT t.name, x.run_id, r.commit_sha, x.context_key, x.function, x.callers, x.arguments, x.arcs, x.count "
        "FROM contexts x JOIN tests t ON t.id = x.test_id JOIN runs r ON r.id = x.run_id WHERE " +
            test_filter + "x.function >= ? AND x.function < ? ORDER BY r.started_at DESC, x.run_id DESC, t.name, "
                          "x.function, x.context_key",
        parameters, [&](const SqlRow& row) {
          StoredContext item;
          item.test_id = sql_text(row[0]);
          item.run_id = sql_int(row[1]);
          item.commit = sql_text(row[2]);
          item.key = sql_text(row[3]);
          item.context.function = sql_text(row[4]);
          item.context.callers = from_json_array(sql_text(row[5]));
          item.context.arguments = sql_text(row[6]);
          if (auto arcs = decode_arcs(sql_text(row[7]))) item.context.arcs = std::move(*arcs);
          item.context.count = static_cast<std::uint64_t>(sql_int(row[8]));
          found.push_back(std::move(item));
        });
    if (!status) return status.error();
    return found;
  }

  util::Result<std::vector<StoredKernel>> select_kernels(const std::string& filter,
                                                         const std::vector<SqlValue>& parameters) {
    std::vector<StoredKernel> found;
    util::Status status = db_->query(
        "SELECT t.name, k.run_id, r.commit_sha, k.name, k.grid, k.block, k.shared_memory, k.template_arguments, "
        "k.count, k.total_duration_us FROM kernels k JOIN tests t ON t.id = k.test_id JOIN runs r ON r.id = k.run_id "
        "WHERE " + filter + " ORDER BY r.started_at DESC, k.run_id DESC, t.name, k.name, k.grid, k.block",
        parameters, [&](const SqlRow& row) {
          StoredKernel item;
          item.test_id = sql_text(row[0]);
          item.run_id = sql_int(row[1]);
          item.commit = sql_text(row[2]);
          item.launch.name = sql_text(row[3]);
          item.launch.grid = sql_text(row[4]);
          item.launch.block = sql_text(row[5]);
          item.launch.shared_memory = static_cast<std::uint64_t>(sql_int(row[6]));
          item.launch.template_arguments = from_json_array(sql_text(row[7]));
          item.launch.count = static_cast<std::uint64_t>(sql_int(row[8]));
          item.launch.total_duration_us = sql_real(row[9]);
          found.push_back(std::move(item));
        });
    if (!status) return status.error();
    return found;
  }

  static HistoryEntry history_entry(const SqlRow& row) {
    HistoryEntry entry;
    entry.test_id = sql_text(row[0]);
    entry.run_id = sql_int(row[1]);
    entry.commit = sql_text(row[2]);
    entry.started_at = sql_text(row[3]);
    if (!sql_is_null(row[4])) entry.outcome = outcome_from_string(sql_text(row[4]));
    if (!sql_is_null(row[5])) entry.duration_seconds = sql_real(row[5]);
    entry.gpus = static_cast<int>(sql_int(row[6]));
    entry.message = sql_text(row[7]);
    return entry;
  }

  /// Fills HistoryEntry::knobs from knob_values rows matching `filter` (alias k).
  util::Status attach_knobs(std::vector<HistoryEntry>& entries, const std::string& filter,
                            const std::vector<SqlValue>& parameters) {
    if (entries.empty()) return {};
    std::map<std::pair<std::int64_t, std::string>, HistoryEntry*> by_key;
    for (HistoryEntry& entry : entries) by_key[{entry.run_id, entry.test_id}] = &entry;
    return db_->query(
        "SELECT k.run_id, t.name, k.knob, k.value FROM knob_values k JOIN tests t ON t.id = k.test_id WHERE " + filter,
        parameters, [&](const SqlRow& row) {
          auto found = by_key.find({sql_int(row[0]), sql_text(row[1])});
          if (found != by_key.end()) found->second->knobs[sql_text(row[2])] = sql_text(row[3]);
        });
  }

  std::unique_ptr<SqlConnection> db_;
  int schema_version_;
};

}  // namespace

util::Result<std::unique_ptr<Store>> make_sql_store(std::unique_ptr<SqlConnection> connection) {
  util::Result<int> version = migrate(*connection);
  for (int attempt = 1; !version && attempt < kIngestAttempts && connection->retryable(version.error()); ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * attempt));
    version = migrate(*connection);
  }
  if (!version) return version.error();
  return std::unique_ptr<Store>(std::make_unique<SqlStore>(std::move(connection), *version));
}

}  // namespace fastci::evidence
