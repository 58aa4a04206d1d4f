#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

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
