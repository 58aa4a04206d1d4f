#include "callgraph/index.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "callgraph/files_below_test_support.h"
#include "callgraph/native_index.h"

namespace fastci::callgraph {
namespace {

SourceFile in_memory(const std::string& path, const std::string& content, bool symlink = false) {
  return {path, path + ":" + std::to_string(content.size()), [content] { return util::Result<std::string>(content); },
          symlink};
}

bool has_edge(const frontend::RepositoryFacts& facts, const std::string& from, const std::string& to) {
  for (const auto& f : facts.files)
    for (const auto& e : f.edges)
      if (e.from == from && e.to == to) return true;
  return false;
}

TEST(Index, PackagesImportedThroughADirectorySymlinkResolve) {
  // DeepSpeed: deepspeed/accelerator is a symlink to ../accelerator; tests import deepspeed.accelerator.
  std::vector<SourceFile> files = {
      in_memory("accelerator/__init__.py", "from .real_accelerator import get_accelerator\n"),
      in_memory("accelerator/real_accelerator.py", "def get_accelerator():\n    return 1\n"),
      in_memory("deepspeed/__init__.py", ""),
      in_memory("deepspeed/accelerator", "../accelerator/", true),
      in_memory("deepspeed/escape", "../../outside", true),
      in_memory("tests/test_accel.py",
                "from deepspeed.accelerator import get_accelerator\n\n\ndef test_accel():\n    get_accelerator()\n"),
  };
  auto cache = IndexCache::disabled();
  IndexOptions options;
  options.show_progress = false;
  auto index = index_repository(files, *cache, options);
  EXPECT_TRUE(has_edge(index.facts, "py:tests.test_accel.test_accel", "py:accelerator.real_accelerator.get_accelerator"));
  // a link that leaves the repository names nothing
  EXPECT_FALSE(has_edge(index.facts, "py:tests.test_accel.test_accel", "?deepspeed.accelerator.get_accelerator"));
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("fastci_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

/// An empty index cache in a fresh folder (removed with the object), and quiet options.
struct FreshCache {
  explicit FreshCache(const std::string& name) : dir(fresh_dir(name)) {
    auto opened = IndexCache::open(dir / "index.db", frontend_version());
    EXPECT_TRUE(opened.ok()) << opened.error().to_string();
    if (opened.ok()) cache = std::move(*opened);
    options.show_progress = false;
  }
  ~FreshCache() {
    cache.reset();
    std::filesystem::remove_all(dir);
  }
  std::filesystem::path dir;
  std::unique_ptr<IndexCache> cache;
  IndexOptions options;
};

std::vector<std::string> edges_of(const frontend::RepositoryFacts& facts) {
  std::vector<std::string> out;
  for (const auto& f : facts.files)
    for (const auto& e : f.edges)
      out.push_back(e.from + " " + frontend::to_string(e.kind) + " " + e.to + " " + e.file + ":" + std::to_string(e.line));
  return out;
}

std::vector<SourceFile> small_tree(const std::string& helper_body) {
  return {in_memory("pkg/__init__.py", ""),
          in_memory("pkg/helpers.py", "def helper():\n    " + helper_body + "\n\n\ndef other():\n    return 2\n"),
          in_memory("tests/test_helpers.py",
                    "from pkg.helpers import helper\n\n\ndef test_helper():\n    assert helper()\n")};
}

TEST(Index, ATreeAnalysedBeforeIsNeitherParsedNorLinkedAgain) {
  FreshCache fresh("linked_cache");
  ASSERT_TRUE(fresh.cache);
  auto& cache = fresh.cache;
  const auto& options = fresh.options;
  auto first = index_repository(small_tree("return other()"), *cache, options);
  EXPECT_FALSE(first.linked_from_cache);
  EXPECT_EQ(first.parsed, 3u);
  auto again = index_repository(small_tree("return other()"), *cache, options);
  EXPECT_TRUE(again.linked_from_cache);
  EXPECT_EQ(again.parsed, 0u);
  EXPECT_EQ(edges_of(again.facts), edges_of(first.facts));
  EXPECT_EQ(again.tests().size(), 1u);
  EXPECT_EQ(again.facts.files.size(), first.facts.files.size());
  EXPECT_TRUE(has_edge(again.facts, "py:pkg.helpers.helper", "py:pkg.helpers.other"));

  // One file's content differs: another tree, linked again (its files' records still cached).
  auto changed = index_repository(small_tree("return 1"), *cache, options);
  EXPECT_FALSE(changed.linked_from_cache);
  EXPECT_EQ(changed.parsed, 1u);
  EXPECT_FALSE(has_edge(changed.facts, "py:pkg.helpers.helper", "py:pkg.helpers.other"));
}

TEST(Index, ATreeWithAnUnreadableFileIsLinkedAgainNextTime) {
  FreshCache fresh("linked_cache_unreadable");
  ASSERT_TRUE(fresh.cache);
  auto& cache = fresh.cache;
  const auto& options = fresh.options;
  auto files = small_tree("return other()");
  files[1].load = [] { return util::Result<std::string>(util::Error{"disk read failed"}); };
  auto first = index_repository(files, *cache, options);
  EXPECT_FALSE(first.linked_from_cache);
  auto again = index_repository(files, *cache, options);
  EXPECT_FALSE(again.linked_from_cache) << "a link over a file that could not be read is not kept";
}

std::vector<std::string> symbols_of(const frontend::RepositoryFacts& facts) {
  std::vector<std::string> out;
  for (const auto& f : facts.files)
    for (const auto& s : f.symbols)
      out.push_back(s.id + " " + std::to_string(s.first_line) + "-" + std::to_string(s.last_line) + " " +
                    std::to_string(s.body_hash) + " " + frontend::to_string(s.kind));
  return out;
}

TEST(Index, AnEditTheLinkerDoesNotReadTakesTheBasesLinkedFactsWithLinesMoved) {
  FreshCache fresh("linked_from_neighbor");
  ASSERT_TRUE(fresh.cache);
  auto& cache = fresh.cache;
  auto options = fresh.options;
  const auto base = small_tree("x = 1 + 2\n    return other()");
  (void)index_repository(base, *cache, options);
  options.neighbor = [&base] { return base; };

  // An operator changed and a line added: the base's links, lines moved; one file parsed.
  const auto head = small_tree("x = 1 - 20\n\n    return other()");
  auto moved = index_repository(head, *cache, options);
  EXPECT_TRUE(moved.linked_from_neighbor);
  EXPECT_EQ(moved.parsed, 1u);
  FreshCache full("linked_from_neighbor_full");
  ASSERT_TRUE(full.cache);
  auto linked = index_repository(head, *full.cache, full.options);
  EXPECT_FALSE(linked.linked_from_neighbor);
  EXPECT_EQ(edges_of(moved.facts), edges_of(linked.facts));
  EXPECT_EQ(symbols_of(moved.facts), symbols_of(linked.facts));
  EXPECT_EQ(moved.tests().size(), linked.tests().size());
  // And kept: the head tree is now a tree analysed before.
  options.neighbor = nullptr;
  EXPECT_TRUE(index_repository(head, *cache, options).linked_from_cache);

  // A call removed is an edit the linker reads: linked.
  options.neighbor = [&base] { return base; };
  auto relinked = index_repository(small_tree("return 1"), *cache, options);
  EXPECT_FALSE(relinked.linked_from_neighbor);
  EXPECT_FALSE(has_edge(relinked.facts, "py:pkg.helpers.helper", "py:pkg.helpers.other"));
  // An int constant changed: linking reads no literal's value in a tree that reads no subscript by a
  // name, so the base's links serve; where one does (`TABLE[k]()`), the tree is linked.
  auto constant_base = small_tree("x = 1 + 2\n    return other()");
  constant_base.push_back(in_memory("pkg/limits.py", "LIMIT = 3\n"));
  (void)index_repository(constant_base, *cache, options);
  options.neighbor = [&constant_base] { return constant_base; };
  auto constant_head = constant_base;
  constant_head.back() = in_memory("pkg/limits.py", "LIMIT = 300\n");
  EXPECT_TRUE(index_repository(constant_head, *cache, options).linked_from_neighbor);
  auto reading_base = constant_base;
  reading_base.push_back(in_memory("pkg/table.py", "from pkg.limits import LIMIT\nTABLE = [print, len]\ndef pick():\n    TABLE[LIMIT]()\n"));
  (void)index_repository(reading_base, *cache, options);
  options.neighbor = [&reading_base] { return reading_base; };
  auto reading_head = reading_base;
  reading_head[3] = in_memory("pkg/limits.py", "LIMIT = 300\n");
  EXPECT_FALSE(index_repository(reading_head, *cache, options).linked_from_neighbor);
  options.neighbor = [&base] { return base; };
  // So is a file added.
  auto added = head;
  added.push_back(in_memory("pkg/more.py", "def more():\n    pass\n"));
  EXPECT_FALSE(index_repository(added, *cache, options).linked_from_neighbor);
}

TEST(Index, TheCacheKeepsAsManyLinkedTreesAsAsked) {
  FreshCache fresh("linked_kept");
  ASSERT_TRUE(fresh.cache);
  auto options = fresh.options;
  options.linked_trees_kept = 1;
  (void)index_repository(small_tree("return other()"), *fresh.cache, options);
  (void)index_repository(small_tree("return 1"), *fresh.cache, options);
  EXPECT_FALSE(index_repository(small_tree("return other()"), *fresh.cache, options).linked_from_cache);
  options.linked_trees_kept = 2;
  (void)index_repository(small_tree("return 1"), *fresh.cache, options);
  EXPECT_TRUE(index_repository(small_tree("return other()"), *fresh.cache, options).linked_from_cache);
}

TEST(Index, TheNativePassOverlappingTheLinkerGivesTheFactsOfOneThread) {
  if (!native_frontend_available()) GTEST_SKIP() << "fastci built without the C++/CUDA frontend";
  // With a second thread the C++ units are parsed while the Python linker runs; the facts, the
  // binding links among them, must be those of one thread doing both in turn.
  auto files = testing::files_below(std::filesystem::path(FASTCI_SOURCE_DIR) / "tests/fixtures/cpp/ext");
  FreshCache one("native_one_thread"), two("native_two_threads");
  ASSERT_TRUE(one.cache && two.cache);
  one.options.threads = 1;
  one.options.scratch_dir = one.dir / "scratch";
  two.options.threads = 2;
  two.options.scratch_dir = two.dir / "scratch";
  auto serial = index_repository(files, *one.cache, one.options);
  auto overlapped = index_repository(files, *two.cache, two.options);
  EXPECT_EQ(overlapped.native_parsed, overlapped.native_units);
  EXPECT_GT(overlapped.native_units, 0u);
  EXPECT_GT(overlapped.python_to_native_links, 0u);
  EXPECT_EQ(overlapped.python_to_native_links, serial.python_to_native_links);
  EXPECT_EQ(overlapped.native_units, serial.native_units);
  EXPECT_EQ(edges_of(overlapped.facts), edges_of(serial.facts));
  EXPECT_EQ(symbols_of(overlapped.facts), symbols_of(serial.facts));
  EXPECT_GT(overlapped.native_seconds, 0);
}

}  // namespace
}  // namespace fastci::callgraph
