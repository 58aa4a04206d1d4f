#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include "planner/git_repository.h"

namespace fastci::planner {
namespace {

/// The bundled example repository, built by the same script users run.
std::filesystem::path example_repo() {
  static std::filesystem::path path = [] {
    auto dest = std::filesystem::temp_directory_path() / ("fastci_git_test_" + std::to_string(::getpid()));
    std::string command = std::string(FASTCI_SOURCE_DIR) + "/scripts/make_example_repo.sh " + dest.string() +
                          " >/dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0);
    return dest;
  }();
  return path;
}

TEST(GitRepository, ResolvesRefsAndRejectsUnknownOnes) {
  auto repo = GitRepository::open(example_repo());
  ASSERT_TRUE(repo.ok()) << repo.error().to_string();
  auto base = (*repo)->resolve("base");
  auto head = (*repo)->resolve("change");
  ASSERT_TRUE(base.ok() && head.ok());
  EXPECT_EQ(base->size(), 40u);
  EXPECT_NE(*base, *head);
  EXPECT_EQ(*(*repo)->resolve("change~1"), *base);
  auto missing = (*repo)->resolve("no-such-branch");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("unknown ref 'no-such-branch'"), std::string::npos);
  EXPECT_FALSE((*repo)->resolve("--upload-pack=evil").ok());
}

TEST(GitRepository, NotARepositoryNamesThePath) {
  auto repo = GitRepository::open("/");
  ASSERT_FALSE(repo.ok());
  EXPECT_EQ(repo.error().file, "/");
}

TEST(GitRepository, ListsAndReadsFilesFromObjects) {
  auto repo = GitRepository::open(example_repo());
  auto head = *(*repo)->resolve("change");
  auto files = (*repo)->list_files(head);
  ASSERT_TRUE(files.ok());
  auto it = std::find_if(files->begin(), files->end(),
                         [](const TreeFile& f) { return f.path == "minifw/moe/router.py"; });
  ASSERT_NE(it, files->end());
  auto text = (*repo)->read_blob(it->blob_id);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("sorted(order[:k])"), std::string::npos);
  EXPECT_FALSE((*repo)->read_file(head, "nope.py").ok());
}

TEST(GitRepository, DiffGivesExactLines) {
  auto repo = GitRepository::open(example_repo());
  auto diff = (*repo)->diff(*(*repo)->resolve("base"), *(*repo)->resolve("change"));
  ASSERT_TRUE(diff.ok());
  ASSERT_EQ(diff->size(), 1u);
  const auto& f = (*diff)[0];
  EXPECT_EQ(f.new_path, "minifw/moe/router.py");
  EXPECT_EQ(f.status, FileStatus::modified);
  EXPECT_EQ(f.old_lines, std::vector<int>{7});
  EXPECT_EQ(f.new_lines, std::vector<int>{7});
  EXPECT_EQ(f.new_text[0], "    chosen = sorted(order[:k])  # stable expert order for all-to-all");
}

}  // namespace
}  // namespace fastci::planner
