#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

#include "util/file.h"

namespace fastci::util {
namespace {

class AtomicFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("fastci-file-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(AtomicFiles, StreamedTextIsWrittenWholeAndNoTemporaryStays) {
  auto path = dir_ / "plan.json";
  ASSERT_TRUE(write_file_atomically(path, "old\n").ok());
  auto status = write_file_atomically(path, [](std::ostream& out) {
    for (int i = 0; i < 3; ++i) out << "line " << i << "\n";
  });
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  EXPECT_EQ(*read_file(path), "line 0\nline 1\nline 2\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "plan.json.tmp"));
}

TEST_F(AtomicFiles, AFailedStreamKeepsTheOldFileAndRemovesItsTemporary) {
  auto path = dir_ / "plan.json";
  ASSERT_TRUE(write_file_atomically(path, "old\n").ok());
  auto status = write_file_atomically(path, [](std::ostream& out) {
    out << "half";
    out.setstate(std::ios::badbit);  // what a full disk does to an ofstream
  });
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().to_string().find("plan.json.tmp"), std::string::npos) << status.error().to_string();
  EXPECT_EQ(*read_file(path), "old\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "plan.json.tmp"));
}

TEST_F(AtomicFiles, AWriterThatThrowsLeavesNoTemporaryAndTheOldFile) {
  auto path = dir_ / "plan.json";
  ASSERT_TRUE(write_file_atomically(path, "old\n").ok());
  EXPECT_THROW((void)write_file_atomically(path, [](std::ostream& out) {
                 out << "half";
                 throw std::runtime_error("entry failed");
               }),
               std::runtime_error);
  EXPECT_EQ(*read_file(path), "old\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "plan.json.tmp"));
}

TEST_F(AtomicFiles, CopiesReplaceTheTargetWholeEmptyFilesIncluded) {
  auto from = dir_ / "a", to = dir_ / "b";
  ASSERT_TRUE(write_file_atomically(from, std::string(100000, 'x')).ok());
  ASSERT_TRUE(write_file_atomically(to, "old").ok());
  ASSERT_TRUE(copy_file_atomically(from, to).ok());
  EXPECT_EQ(read_file(to)->size(), 100000u);
  ASSERT_TRUE(write_file_atomically(from, "").ok());
  ASSERT_TRUE(copy_file_atomically(from, to).ok());
  EXPECT_EQ(*read_file(to), "");
  auto missing = copy_file_atomically(dir_ / "none", to);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().to_string().find("none"), std::string::npos);
  EXPECT_EQ(*read_file(to), "") << "a failed copy leaves the target as it was";
}

}  // namespace
}  // namespace fastci::util
