#include <gtest/gtest.h>

#include <filesystem>

#include "util/file.h"
#include "util/format.h"
#include "util/state_dir.h"
#include "util/hash.h"

namespace fastci::util {
namespace {

TEST(Hash, ContentHashIsStableAndDistinguishesContent) {
  EXPECT_EQ(content_hash("abc"), content_hash("abc"));
  EXPECT_NE(content_hash("abc"), content_hash("abd"));
  EXPECT_EQ(content_hash("abc").size(), 32u);
}

TEST(Utf8, AcceptsTextRejectsBinary) {
  EXPECT_TRUE(is_valid_utf8("def f():\n  return 'é'\n"));
  EXPECT_FALSE(is_valid_utf8(std::string("ab\0cd", 5)));
  EXPECT_FALSE(is_valid_utf8("\xff\xfe"));
  EXPECT_FALSE(is_valid_utf8("\xc3"));  // truncated sequence
}

TEST(Paths, InsideFollowsSymlinks) {
  auto root = std::filesystem::temp_directory_path() / "fastci_util_test_root";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "a");
  std::filesystem::create_symlink("/etc", root / "a" / "escape");
  EXPECT_TRUE(is_inside(root, root / "a"));
  EXPECT_FALSE(is_inside(root, root / "a" / "escape"));
  EXPECT_FALSE(is_inside(root, "/tmp"));
  std::filesystem::remove_all(root);
}

TEST(Format, FixedDecimalsRound) {
  EXPECT_EQ(fixed(12.3456, 2), "12.35");
  EXPECT_EQ(fixed(0.123456789, 0), "0");
  EXPECT_EQ(fixed(7, 1), "7.0");
}

TEST(StateDir, ChosenFolderWinsOverTheRepositoryDefault) {
  EXPECT_EQ(state_dir("/repo"), std::filesystem::path("/repo/.fastci"));
  EXPECT_EQ(state_dir("/repo", "/ci/state"), std::filesystem::path("/ci/state"));
  EXPECT_EQ(last_plan_file(state_dir("/repo", "/ci/state")), std::filesystem::path("/ci/state/last-plan.json"));
}

}  // namespace
}  // namespace fastci::util
