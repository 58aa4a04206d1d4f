#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>
#include <unordered_map>

#include "evidence/store/sql_connection.h"

namespace fastci::evidence {

namespace {

/// How long a writer waits for another process's transaction before giving up.
constexpr int kBusyTimeoutMs = 120000;

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override {
    for (auto& [sql, statement] : statements_) sqlite3_finalize(statement);
    sqlite3_close(db_);
  }

  std::string dialect() const override { return "sqlite"; }
  std::string location() const override { return path_; }

  util::Status execute_script(const std::string& sql) override {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      std::string text = message ? message : sqlite3_errmsg(db_);
      sqlite3_free(message);
      return fail(text);
    }
    return {};
  }

  util::Status begin_write() override { return execute_script("BEGIN IMMEDIATE"); }
  util::Status begin_read() override { return execute_script("BEGIN DEFERRED"); }
  util::Status commit() override { return execute_script("COMMIT"); }
  void rollback() override {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

  util::Status query(const std::string& sql, const std::vector<SqlValue>& parameters,
                     const std::function<void(const SqlRow&)>& on_row) override {
    auto statement = prepare(sql);
    if (!statement) return statement.error();
    sqlite3_stmt* stmt = *statement;
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    for (std::size_t i = 0; i < parameters.size(); ++i) bind(stmt, static_cast<int>(i + 1), parameters[i]);
    SqlRow row;
    while (true) {
      int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        std::string message = sqlite3_errmsg(db_);
        sqlite3_reset(stmt);
        return fail(message + " (in: " + sql.substr(0, 80) + ")");
      }
      if (!on_row) continue;
      int columns = sqlite3_column_count(stmt);
      row.resize(static_cast<std::size_t>(columns));
      for (int c = 0; c < columns; ++c) row[static_cast<std::size_t>(c)] = column(stmt, c);
      on_row(row);
    }
    sqlite3_reset(stmt);
    return {};
  }

  bool retryable(const util::Error& error) const override {
    return error.message.find("database is locked") != std::string::npos ||
           error.message.find("database is busy") != std::string::npos;
  }

  std::int64_t size_bytes() override {
    std::error_code ignored;
    std::int64_t total = 0;
    for (const char* suffix : {"", "-wal"}) {
      auto size = std::filesystem::file_size(path_ + suffix, ignored);
      if (!ignored) total += static_cast<std::int64_t>(size);
    }
    return total;
  }

 private:
  util::Error fail(const std::string& message) const { return util::Error{message, path_, 0}; }

  util::Result<sqlite3_stmt*> prepare(const std::string& sql) {
    auto found = statements_.find(sql);
    if (found != statements_.end()) return found->second;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                           &stmt, nullptr) != SQLITE_OK) {
      return fail(std::string(sqlite3_errmsg(db_)) + " (in: " + sql.substr(0, 80) + ")");
    }
    statements_.emplace(sql, stmt);
    return stmt;
  }

  static void bind(sqlite3_stmt* stmt, int index, const SqlValue& value) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
      sqlite3_bind_int64(stmt, index, *i);
    } else if (const auto* d = std::get_if<double>(&value)) {
      sqlite3_bind_double(stmt, index, *d);
    } else if (const auto* s = std::get_if<std::string>(&value)) {
      sqlite3_bind_text(stmt, index, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
    } else if (const auto* b = std::get_if<SqlBlob>(&value)) {
      sqlite3_bind_blob(stmt, index, b->bytes.data(), static_cast<int>(b->bytes.size()), SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_null(stmt, index);
    }
  }

  static SqlValue column(sqlite3_stmt* stmt, int c) {
    switch (sqlite3_column_type(stmt, c)) {
      case SQLITE_INTEGER: return static_cast<std::int64_t>(sqlite3_column_int64(stmt, c));
      case SQLITE_FLOAT: return sqlite3_column_double(stmt, c);
      case SQLITE_TEXT: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, c)));
      }
      case SQLITE_BLOB: {
        const auto* data = static_cast<const char*>(sqlite3_column_blob(stmt, c));
        return SqlBlob{std::string(data ? data : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt, c)))};
      }
      default: return std::monostate{};
    }
  }

  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

// Switching a new file to WAL needs its exclusive lock, and SQLite answers "locked" at once, without
// the busy handler, when several processes open the same new store together (eight CI jobs starting
// at once): retry with backoff for as long as a writer would wait.
util::Status query_while_locked(SqlConnection& connection, const char* sql) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    util::Status status = connection.query(sql, {}, {});
    if (status || !connection.retryable(status.error()) || std::chrono::steady_clock::now() >= deadline) {
      return status;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
}

}  // namespace

util::Result<std::unique_ptr<SqlConnection>> open_sqlite(const std::string& path) {
  std::error_code ignored;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return util::Error{"cannot open evidence store: " + message, path, 0};
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  auto connection = std::make_unique<SqliteConnection>(db, path);
  // WAL lets readers (the planner) run while a CI job ingests; NORMAL sync is durable at commit in WAL.
  for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON",
                             "PRAGMA cache_size=-65536", "PRAGMA temp_store=MEMORY"}) {
    util::Status status = query_while_locked(*connection, pragma);
    if (!status) return util::Error{"cannot open evidence store: " + status.error().message, path, 0};
  }
  return std::unique_ptr<SqlConnection>(std::move(connection));
}

}  // namespace fastci::evidence
