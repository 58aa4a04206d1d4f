#include "evidence/ingest/coveragepy_sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "evidence/ingest/coveragepy_contexts.h"

namespace fastci::evidence {

namespace {

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
/// coverage.py's SQLite schema version since 5.0 (still 7 in coverage 7.x).
constexpr int kSchemaVersion = 7;

/// A read-only handle on the data file that never writes next to it (no -wal/-shm files).
class Database {
 public:
  explicit Database(const std::filesystem::path& file) : file_(file.string()) {
    std::string uri = "file:" + encode_uri_path(file_) + "?mode=ro&immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
      error_ = db_ ? sqlite3_errmsg(db_) : "out of memory";
    }
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  bool ok() const { return error_.empty(); }
  util::Error error(const std::string& what) const {
    return util::Error{what + (error_.empty() ? "" : ": " + error_), file_, 0};
  }

  /// Runs `sql` with integer parameters, calling on_row(statement) per row; false (error set) on failure.
  template <typename OnRow>
  bool each(const char* sql, std::initializer_list<sqlite3_int64> parameters, OnRow on_row) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK) {
      error_ = sqlite3_errmsg(db_);
      return false;
    }
    int index = 1;
    for (sqlite3_int64 value : parameters) sqlite3_bind_int64(statement, index++, value);
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) on_row(statement);
    if (rc != SQLITE_DONE) error_ = sqlite3_errmsg(db_);
    sqlite3_finalize(statement);
    return rc == SQLITE_DONE;
  }

  bool has_table(const char* name) {
    bool found = false;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &statement,
                           nullptr) != SQLITE_OK) {
      error_ = sqlite3_errmsg(db_);
      return false;
    }
    sqlite3_bind_text(statement, 1, name, -1, SQLITE_STATIC);
    found = sqlite3_step(statement) == SQLITE_ROW;
    sqlite3_finalize(statement);
    return found;
  }

 private:
  static std::string encode_uri_path(const std::string& path) {
    std::string out;
    for (char c : path) {
      if (c == '%' || c == '?' || c == '#') {
        char buffer[4];
        std::snprintf(buffer, sizeof buffer, "%%%02X", static_cast<unsigned char>(c));
        out += buffer;
      } else {
        out += c;
      }
    }
    return out;
  }

  std::string file_;
  sqlite3* db_ = nullptr;
  std::string error_;
};

std::string column_text(sqlite3_stmt* statement, int column) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
  return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, column))) : std::string();
}

/// coverage.py numbits: bit b of byte i set means line i * 8 + b ran.
void add_numbits(const unsigned char* bytes, int size, std::vector<int>& lines) {
  for (int i = 0; i < size; ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      if (bytes[i] & (1u << bit)) lines.push_back(i * 8 + bit);
    }
  }
}

/// "2026-12-02 11:43:39" (coverage.py's `when`) to ISO 8601.
std::string iso_time(std::string when) {
  if (when.size() >= 19 && when[10] == ' ') when[10] = 'T';
  return when;
}

struct TestData {
  std::vector<sqlite3_int64> contexts;
  std::vector<sqlite3_int64> run_contexts;  // the "|run" phase, which holds the test body
  std::map<sqlite3_int64, std::vector<int>> lines;  // file id -> lines
  std::map<sqlite3_int64, std::vector<Arc>> arcs;   // file id -> arcs
};

}  // namespace

bool sniff_coveragepy_sqlite(std::string_view head, const std::filesystem::path& file) {
  if (head.substr(0, kSqliteMagic.size()) != kSqliteMagic) return false;
  Database db(file);
  return db.ok() && db.has_table("coverage_schema");
}

util::Status read_coveragepy_sqlite(const std::filesystem::path& file, EvidenceSink& sink) {
  Database db(file);
  if (!db.ok()) return db.error("cannot open coverage.py data file");
  if (!db.has_table("coverage_schema")) {
    return db.error("not a coverage.py data file (no coverage_schema table; expected coverage.py 5.0 or later)");
  }
  int version = -1;
  if (!db.each("SELECT version FROM coverage_schema", {},
               [&](sqlite3_stmt* s) { version = sqlite3_column_int(s, 0); })) {
    return db.error("cannot read coverage_schema");
  }
  if (version != kSchemaVersion) {
    return db.error("unsupported coverage.py data schema version " + std::to_string(version) + " (expected " +
                    std::to_string(kSchemaVersion) + ")");
  }
  std::map<std::string, std::string> meta;
  if (!db.each("SELECT key, value FROM meta", {},
               [&](sqlite3_stmt* s) { meta[column_text(s, 0)] = column_text(s, 1); })) {
    return db.error("cannot read meta");
  }
  Run run;
  run.started_at = iso_time(meta["when"]);
  nlohmann::json environment = nlohmann::json::object();
  if (meta.count("version")) environment["coverage_version"] = meta["version"];
  if (meta.count("sys_argv")) environment["coverage_command"] = meta["sys_argv"];
  run.environment = environment.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  run.source_format = "coveragepy-sqlite";
  run.source_file = file.string();
  sink.begin_run(run);

  std::map<sqlite3_int64, std::string> paths;
  if (!db.each("SELECT id, path FROM file", {}, [&](sqlite3_stmt* s) {
        paths[sqlite3_column_int64(s, 0)] = column_text(s, 1);
      })) {
    return db.error("cannot read the file table");
  }

  // Group contexts by test so each test reaches the sink once with all of its phases merged.
  std::map<std::string, TestData> tests;
  std::map<sqlite3_int64, std::string> test_of_context_id;
  std::size_t non_node_contexts = 0;
  std::string example_context;
  if (!db.each("SELECT id, context FROM context ORDER BY id", {}, [&](sqlite3_stmt* s) {
        ContextTest test = test_of_context(column_text(s, 1));
        if (!test.test_id.empty() && !test.node_id && ++non_node_contexts == 1) example_context = test.test_id;
        test_of_context_id[sqlite3_column_int64(s, 0)] = test.test_id;
        tests[test.test_id].contexts.push_back(sqlite3_column_int64(s, 0));
        if (test.phase == "run") tests[test.test_id].run_contexts.push_back(sqlite3_column_int64(s, 0));
      })) {
    return db.error("cannot read the context table");
  }
  if (non_node_contexts > 0) {
    sink.warn(Warning{file.string(), 0,
                      std::to_string(non_node_contexts) +
                          " contexts are not pytest node ids (e.g. '" + example_context +
                          "': coverage.py dynamic_context = test_function?); they are kept as test ids as written"});
  }

  std::size_t rows_read = 0;
  std::size_t tests_without_data = 0, bodies_without_data = 0;
  for (auto& [test_id, data] : tests) {
    bool body_ran_nothing = !data.run_contexts.empty();
    for (sqlite3_int64 context : data.contexts) {
      std::size_t rows_before = rows_read;
      bool read = db.each("SELECT file_id, numbits FROM line_bits WHERE context_id = ?", {context},
                          [&](sqlite3_stmt* s) {
                            const auto* bytes = static_cast<const unsigned char*>(sqlite3_column_blob(s, 1));
                            add_numbits(bytes, sqlite3_column_bytes(s, 1), data.lines[sqlite3_column_int64(s, 0)]);
                            ++rows_read;
                          }) &&
                  db.each("SELECT file_id, fromno, tono FROM arc WHERE context_id = ?", {context},
                          [&](sqlite3_stmt* s) {
                            data.arcs[sqlite3_column_int64(s, 0)].emplace_back(sqlite3_column_int(s, 1),
                                                                               sqlite3_column_int(s, 2));
                            ++rows_read;
                          });
      if (!read) return db.error("cannot read coverage data");
      bool is_run_phase = std::find(data.run_contexts.begin(), data.run_contexts.end(), context) !=
                          data.run_contexts.end();
      if (is_run_phase && rows_read > rows_before) body_ran_nothing = false;
    }
    if (body_ran_nothing) ++bodies_without_data;
    TestEvidence evidence;
    evidence.test_id = test_id;
    std::set<sqlite3_int64> files;
    for (const auto& [id, lines] : data.lines) files.insert(id);
    for (const auto& [id, arcs] : data.arcs) files.insert(id);
    for (sqlite3_int64 id : files) {
      auto path = paths.find(id);
      if (path == paths.end()) return db.error("coverage data names file id " + std::to_string(id) + " that the file table lacks");
      std::vector<int>& lines = data.lines[id];
      std::vector<Arc>& arcs = data.arcs[id];
      // In branch mode coverage.py stores only arcs; the lines that ran are their positive ends.
      for (const Arc& arc : arcs) {
        if (arc.first > 0) lines.push_back(arc.first);
        if (arc.second > 0) lines.push_back(arc.second);
      }
      std::vector<LineRange> ranges;
      std::sort(lines.begin(), lines.end());
      for (int line : lines) {
        if (line < 1) continue;
        if (!ranges.empty() && line <= ranges.back().second + 1) {
          ranges.back().second = std::max(ranges.back().second, line);
        } else {
          ranges.emplace_back(line, line);
        }
      }
      evidence.coverage.push_back(FileCoverage{path->second, std::move(ranges), std::move(arcs)});
    }
    if (evidence.coverage.empty() && !test_id.empty()) ++tests_without_data;
    sink.add_test(std::move(evidence));
  }
  if (tests_without_data > 0) {
    sink.warn(Warning{file.string(), 0,
                      std::to_string(tests_without_data) + " of " +
                          std::to_string(tests.size() - tests.count("")) +
                          " tests recorded no coverage (code run in subprocesses not measured?): their "
                          "per-test coverage is missing, not empty"});
  }
  if (bodies_without_data > 0) {
    sink.warn(Warning{file.string(), 0,
                      std::to_string(bodies_without_data) + " of " +
                          std::to_string(tests.size() - tests.count("")) +
                          " tests recorded no coverage while their body ran ('|run' contexts empty; code run in "
                          "subprocesses not measured?): their per-test coverage is incomplete"});
  }
  return {};
}

}  // namespace fastci::evidence
