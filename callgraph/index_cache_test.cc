#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <sqlite3.h>

#include "callgraph/index_cache.h"

namespace fastci::callgraph {
namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("fastci_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(IndexCache, StoresAndFindsByPathAndHash) {
  auto dir = fresh_dir("cache");
  auto cache = IndexCache::open(dir / "index.db", "v1");
  ASSERT_TRUE(cache.ok()) << cache.error().to_string();
  ASSERT_TRUE((*cache)->store({{"python", "a.py", "h1", "blob-a"}, {"python", "b.py", "h2", "blob-b"}}).ok());
  EXPECT_EQ((*cache)->lookup("python", "a.py", "h1"), "blob-a");
  EXPECT_FALSE((*cache)->lookup("python", "a.py", "h2").has_value());
  EXPECT_FALSE((*cache)->lookup("cpp", "a.py", "h1").has_value());
  std::filesystem::remove_all(dir);
}

TEST(IndexCache, ALookupHoldsNoReadSnapshotThatWouldKeepTheLogGrowing) {
  auto dir = fresh_dir("cache_wal");
  auto cache = IndexCache::open(dir / "index.db", "v1");
  ASSERT_TRUE(cache.ok()) << cache.error().to_string();
  ASSERT_TRUE((*cache)->store({{"python", "a.py", "h1", "blob-a"}}).ok());
  ASSERT_EQ((*cache)->lookup("python", "a.py", "h1"), "blob-a");
  ASSERT_TRUE((*cache)->store_linked("tree", std::string(1 << 16, 'x')).ok());
  // Another connection truncating the log succeeds only when no reader still holds a snapshot.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "index.db").c_str(), &other), SQLITE_OK);
  int busy = -1;
  sqlite3_exec(other, "PRAGMA wal_checkpoint(TRUNCATE)",
               [](void* out, int, char** values, char**) { *static_cast<int*>(out) = std::atoi(values[0]); return 0; },
               &busy, nullptr);
  sqlite3_close(other);
  EXPECT_EQ(busy, 0) << "the cache's own connection still reads an old snapshot";
  EXPECT_EQ(std::filesystem::file_size(dir / "index.db-wal"), 0u);
  std::filesystem::remove_all(dir);
}

TEST(IndexCache, IgnoresEntriesOfAnotherFrontendVersion) {
  auto dir = fresh_dir("cache_version");
  {
    auto cache = IndexCache::open(dir / "index.db", "v1");
    ASSERT_TRUE((*cache)->store({{"python", "a.py", "h1", "old"}}).ok());
  }
  auto cache = IndexCache::open(dir / "index.db", "v2");
  ASSERT_TRUE(cache.ok());
  EXPECT_FALSE((*cache)->lookup("python", "a.py", "h1").has_value());
  std::filesystem::remove_all(dir);
}

TEST(IndexCache, CorruptFileGivesAClearError) {
  auto dir = fresh_dir("cache_corrupt");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "index.db") << "this is not an SQLite database, just text that is long enough";
  auto cache = IndexCache::open(dir / "index.db", "v1");
  ASSERT_FALSE(cache.ok());
  EXPECT_NE(cache.error().to_string().find("index.db"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(IndexCache, DisabledCacheStoresNothing) {
  auto cache = IndexCache::disabled();
  EXPECT_TRUE(cache->store({{"python", "a.py", "h", "b"}}).ok());
  EXPECT_FALSE(cache->lookup("python", "a.py", "h").has_value());
  EXPECT_TRUE(cache->store_linked("tree", "facts").ok());
  EXPECT_FALSE(cache->lookup_linked("tree").has_value());
}

TEST(IndexCache, KeepsTheLinkedFactsOfTheTreesUsedLast) {
  auto dir = fresh_dir("cache_linked");
  auto cache = IndexCache::open(dir / "index.db", "v1");
  ASSERT_TRUE(cache.ok()) << cache.error().to_string();
  std::string binary("with\0nul bytes", 14);
  ASSERT_TRUE((*cache)->store_linked("tree-a", binary, 2).ok());
  ASSERT_TRUE((*cache)->store_linked("tree-b", "facts of b", 2).ok());
  EXPECT_EQ((*cache)->lookup_linked("tree-a"), binary);  // a is now the most recent
  ASSERT_TRUE((*cache)->store_linked("tree-c", "facts of c", 2).ok());
  EXPECT_TRUE((*cache)->lookup_linked("tree-a").has_value());
  EXPECT_FALSE((*cache)->lookup_linked("tree-b").has_value()) << "the least recently used tree is evicted";
  EXPECT_EQ((*cache)->lookup_linked("tree-c"), "facts of c");
  ASSERT_TRUE((*cache)->store_linked("tree-c", "facts of c again", 2).ok());
  EXPECT_EQ((*cache)->lookup_linked("tree-c"), "facts of c again");
  std::filesystem::remove_all(dir);
}

TEST(IndexCache, IgnoresLinkedFactsOfAnotherFrontendVersion) {
  auto dir = fresh_dir("cache_linked_version");
  {
    auto cache = IndexCache::open(dir / "index.db", "v1");
    ASSERT_TRUE((*cache)->store_linked("tree", "old facts").ok());
  }
  auto cache = IndexCache::open(dir / "index.db", "v2");
  ASSERT_TRUE(cache.ok());
  EXPECT_FALSE((*cache)->lookup_linked("tree").has_value());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fastci::callgraph
