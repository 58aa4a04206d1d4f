#include "util/data_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fastci::util {
namespace {

namespace fs = std::filesystem;

class DataDir : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("fastci_data_dir_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "src" / "planner" / "workload" / "data");
  }
  void TearDown() override { fs::remove_all(root_); }

  /// An empty file standing in for a binary at `path`.
  fs::path binary(const fs::path& path) {
    fs::create_directories(path.parent_path());
    std::ofstream(path).put('\n');
    return path;
  }

  DataFolder folder() const { return {"../share/fastci/workload", root_ / "src" / "planner" / "workload" / "data"}; }

  fs::path root_;
};

TEST_F(DataDir, InstalledBinaryFindsTheDataUnderItsPrefix) {
  auto exe = binary(root_ / "prefix" / "bin" / "fastci");
  fs::create_directories(root_ / "prefix" / "share" / "fastci" / "workload");
  EXPECT_EQ(data_dir(folder(), exe, root_ / "build"), root_ / "prefix" / "share" / "fastci" / "workload");
}

TEST_F(DataDir, BuildTreeBinaryFindsTheSourceTree) {
  auto exe = binary(root_ / "build" / "cli" / "fastci");
  EXPECT_EQ(data_dir(folder(), exe, root_ / "build"), folder().source);
}

TEST_F(DataDir, InstallIntoTheBuildFolderIsStillAnInstall) {
  auto exe = binary(root_ / "build" / "prefix" / "bin" / "fastci");
  fs::create_directories(root_ / "build" / "prefix" / "share" / "fastci" / "workload");
  EXPECT_EQ(data_dir(folder(), exe, root_ / "build"), root_ / "build" / "prefix" / "share" / "fastci" / "workload");
}

TEST_F(DataDir, InstalledBinaryWithoutItsDataNamesTheInstalledPathNotTheSourceTree) {
  auto exe = binary(root_ / "prefix" / "bin" / "fastci");
  EXPECT_EQ(data_dir(folder(), exe, root_ / "build"), root_ / "prefix" / "share" / "fastci" / "workload");
}

TEST(DataDirOfThisBinary, TheWorkloadDataOfTheSourceTree) {
  // this test binary lies in its build folder and nothing is installed beside it
  const fs::path dir = data_dir(workload_data());
  EXPECT_EQ(dir, fs::path(FASTCI_WORKLOAD_DATA_SOURCE_DIR));
  EXPECT_TRUE(fs::exists(dir / "knobs.toml")) << dir;
  EXPECT_TRUE(workload_data().from_binary.is_relative());
}

}  // namespace
}  // namespace fastci::util
