#pragma once
/// Per-file facts keyed by content hash, in SQLite under `.fastci/`, so a re-run parses only
/// what changed.

#include <filesystem>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace fastci::callgraph {

/// One cached record to store.
struct CacheEntry {
  std::string frontend;      ///< which frontend wrote it ("python", "cpp")
  std::string path;          ///< repository-relative path (part of the key: module names come from it)
  std::string content_hash;  ///< hash of the bytes parsed (for C++: of the TU and the headers it read)
  std::string blob;          ///< the frontend's serialized per-file record
};

/// The SQLite-backed index cache. Entries written by another frontend version are ignored.
class IndexCache {
 public:
  /// Opens (creating) the cache file; fails with a message naming the file.
  static util::Result<std::unique_ptr<IndexCache>> open(const std::filesystem::path& file,
                                                        std::string frontend_version);
  /// A cache that stores nothing (for --no-cache).
  static std::unique_ptr<IndexCache> disabled();
  ~IndexCache();

  /// The blob for (frontend, path, hash), if cached. Safe to call from several threads.
  std::optional<std::string> lookup(std::string_view frontend, std::string_view path,
                                    std::string_view content_hash);
  /// Stores entries in one transaction; a failure leaves the cache as it was.
  util::Status store(const std::vector<CacheEntry>& entries);

  /// The linked facts of a whole tree (key: a hash of its Python paths, contents and package
  /// aliases, made by index_repository), if cached; a hit makes it the most recent.
  std::optional<std::string> lookup_linked(std::string_view key);
  /// Stores a tree's linked facts and keeps only the `keep` most recently used trees: each is the
  /// size of the whole tree's edges, and a tree not analysed again is dead weight.
  util::Status store_linked(std::string_view key, std::string_view blob, int keep = 4);

 private:
  IndexCache() = default;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* lookup_ = nullptr;
  /// Runs sql with parameters (?1, ?2, ...) bound as blobs, under the lock held by the caller; a
  /// row's first column goes to `row` when given.
  bool exec(const char* sql, std::initializer_list<std::string_view> parameters, std::optional<std::string>* row = nullptr);
  std::string version_;
  std::mutex mutex_;  ///< the parser threads share one connection and one prepared statement
};

}  // namespace fastci::callgraph
