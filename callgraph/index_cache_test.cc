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
}

}  // namespace
}  // namespace fastci::callgraph
