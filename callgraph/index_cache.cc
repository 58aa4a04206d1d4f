#include "callgraph/index_cache.h"

#include <sqlite3.h>

namespace fastci::callgraph {
namespace {

constexpr const char* kSchema = R"sql(
PRAGMA journal_mode=WAL;
PRAGMA synchronous=NORMAL;
CREATE TABLE IF NOT EXISTS facts (
  frontend TEXT NOT NULL,
  version TEXT NOT NULL,
  path TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  blob BLOB NOT NULL,
  PRIMARY KEY (frontend, path, content_hash)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS linked (
  key TEXT NOT NULL PRIMARY KEY,
  version TEXT NOT NULL,
  blob BLOB NOT NULL,
  used INTEGER NOT NULL
);
)sql";

util::Error sqlite_error(sqlite3* db, const std::filesystem::path& file, const std::string& what) {
  return util::Error{what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"), file.string()};
}

}  // namespace

util::Result<std::unique_ptr<IndexCache>> IndexCache::open(const std::filesystem::path& file,
                                                           std::string frontend_version) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) return util::Error{"cannot create cache folder: " + ec.message(), file.parent_path().string()};
  std::unique_ptr<IndexCache> cache(new IndexCache());
  cache->version_ = std::move(frontend_version);
  if (sqlite3_open(file.c_str(), &cache->db_) != SQLITE_OK)
    return sqlite_error(cache->db_, file, "cannot open index cache");
  sqlite3_busy_timeout(cache->db_, 10000);
  char* message = nullptr;
  if (sqlite3_exec(cache->db_, kSchema, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    return util::Error{"index cache is not usable (" + text + "); delete it to rebuild", file.string()};
  }
  if (sqlite3_prepare_v2(cache->db_,
                         "SELECT blob FROM facts WHERE frontend=?1 AND path=?2 AND content_hash=?3 "
                         "AND version=?4",
                         -1, &cache->lookup_, nullptr) != SQLITE_OK)
    return sqlite_error(cache->db_, file, "cannot prepare index cache query");
  return cache;
}

std::unique_ptr<IndexCache> IndexCache::disabled() { return std::unique_ptr<IndexCache>(new IndexCache()); }

IndexCache::~IndexCache() {
  sqlite3_finalize(lookup_);
  sqlite3_close(db_);
}

std::optional<std::string> IndexCache::lookup(std::string_view frontend, std::string_view path,
                                              std::string_view content_hash) {
  if (!db_) return std::nullopt;
  std::lock_guard lock(mutex_);
  sqlite3_reset(lookup_);
  sqlite3_bind_text(lookup_, 1, frontend.data(), static_cast<int>(frontend.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(lookup_, 2, path.data(), static_cast<int>(path.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(lookup_, 3, content_hash.data(), static_cast<int>(content_hash.size()),
                    SQLITE_TRANSIENT);
  sqlite3_bind_text(lookup_, 4, version_.data(), static_cast<int>(version_.size()), SQLITE_TRANSIENT);
  std::optional<std::string> blob;
  if (sqlite3_step(lookup_) == SQLITE_ROW) {
    const void* data = sqlite3_column_blob(lookup_, 0);
    blob.emplace(static_cast<const char*>(data), static_cast<std::size_t>(sqlite3_column_bytes(lookup_, 0)));
  }
  // A statement left on its row holds a read snapshot: no checkpoint could then reuse the WAL, which
  // grew by every linked tree written after it (182 MB during one replay).
  sqlite3_reset(lookup_);
  return blob;
}

util::Status IndexCache::store(const std::vector<CacheEntry>& entries) {
  if (!db_ || entries.empty()) return {};
  std::lock_guard lock(mutex_);
  sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO facts VALUES (?1, ?2, ?3, ?4, ?5)", -1, &insert,
                     nullptr);
  for (const auto& e : entries) {
    sqlite3_reset(insert);
    sqlite3_bind_text(insert, 1, e.frontend.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 2, version_.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 3, e.path.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 4, e.content_hash.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(insert, 5, e.blob.data(), static_cast<int>(e.blob.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(insert) != SQLITE_DONE) {
      std::string message = sqlite3_errmsg(db_);
      sqlite3_finalize(insert);
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return util::Error{"cannot write index cache: " + message};
    }
  }
  sqlite3_finalize(insert);
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    std::string message = sqlite3_errmsg(db_);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return util::Error{"cannot commit index cache: " + message};
  }
  return {};
}

bool IndexCache::exec(const char* sql, std::initializer_list<std::string_view> parameters,
                      std::optional<std::string>* row) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK) return false;
  int i = 0;
  for (auto p : parameters)
    sqlite3_bind_blob(statement, ++i, p.data(), static_cast<int>(p.size()), SQLITE_STATIC);
  int rc = sqlite3_step(statement);
  if (rc == SQLITE_ROW && row) {
    const void* data = sqlite3_column_blob(statement, 0);
    *row = std::string(static_cast<const char*>(data), static_cast<std::size_t>(sqlite3_column_bytes(statement, 0)));
  }
  sqlite3_finalize(statement);
  return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

// Keys and versions are bound as blobs: they are compared byte for byte, as they were written.
constexpr const char* kNextUse = "(SELECT COALESCE(MAX(used), 0) + 1 FROM linked)";

std::optional<std::string> IndexCache::lookup_linked(std::string_view key) {
  if (!db_) return std::nullopt;
  std::lock_guard lock(mutex_);
  std::optional<std::string> blob;
  if (!exec("SELECT blob FROM linked WHERE key=?1 AND version=?2", {key, version_}, &blob) || !blob) return std::nullopt;
  // Recency only decides what is evicted: a cache another process holds locked still serves the hit.
  exec((std::string("UPDATE linked SET used=") + kNextUse + " WHERE key=?1").c_str(), {key});
  return blob;
}

util::Status IndexCache::store_linked(std::string_view key, std::string_view blob, int keep) {
  if (!db_) return {};
  std::lock_guard lock(mutex_);
  sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  std::string evict = "DELETE FROM linked WHERE key NOT IN (SELECT key FROM linked ORDER BY used DESC LIMIT " +
                      std::to_string(keep) + ")";
  bool ok = exec((std::string("INSERT OR REPLACE INTO linked VALUES (?1, ?2, ?3, ") + kNextUse + ")").c_str(),
                 {key, version_, blob}) &&
            exec(evict.c_str(), {});
  if (!ok || sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    std::string message = sqlite3_errmsg(db_);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return util::Error{"cannot write linked facts to the index cache: " + message};
  }
  return {};
}

}  // namespace fastci::callgraph
