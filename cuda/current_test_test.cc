#include "cuda/current_test.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "cuda/fixture_runner.h"

namespace fastci::cuda {
namespace {

void announce(const std::string& path, const std::string& test) {
  std::string temporary = path + ".next";
  std::ofstream(temporary) << test << "\n";
  ASSERT_EQ(std::rename(temporary.c_str(), path.c_str()), 0);
}

std::string name_of(CurrentTest& tests, std::uint32_t index) { return tests.names().at(index); }

TEST(CudaCurrentTest, FollowsTheFileAtEveryCallWithZeroInterval) {
  std::string path = testing::make_temporary_directory() + "/current";
  CurrentTest tests({path, "", 0});
  EXPECT_EQ(name_of(tests, tests.current()), "");  // no file yet: outside any test
  announce(path, "tests/test_a.py::test_one");
  EXPECT_EQ(name_of(tests, tests.current()), "tests/test_a.py::test_one");
  announce(path, "tests/test_a.py::test_two[1-bf16]");
  EXPECT_EQ(name_of(tests, tests.current()), "tests/test_a.py::test_two[1-bf16]");
  announce(path, "tests/test_a.py::test_one");
  std::uint32_t again = tests.current();
  EXPECT_EQ(name_of(tests, again), "tests/test_a.py::test_one");
  EXPECT_EQ(tests.names().size(), 3u);  // ids are interned once
  std::remove(path.c_str());
  EXPECT_EQ(name_of(tests, tests.current()), "");
}

TEST(CudaCurrentTest, PollsNoMoreOftenThanTheInterval) {
  std::string path = testing::make_temporary_directory() + "/current";
  announce(path, "first");
  CurrentTest tests({path, "", 60'000'000'000ull});  // one minute
  EXPECT_EQ(name_of(tests, tests.current()), "first");
  announce(path, "second");
  EXPECT_EQ(name_of(tests, tests.current()), "first");  // not re-read within the interval
  tests.refresh();
  EXPECT_EQ(name_of(tests, tests.current()), "second");
}

TEST(CudaCurrentTest, FixedTestWithoutFile) {
  CurrentTest tests({"", "tests/test_b.py::test_only", 0});
  EXPECT_EQ(name_of(tests, tests.current()), "tests/test_b.py::test_only");
}

TEST(CudaCurrentTest, RewriteInPlaceIsSeen) {
  // A runner that truncates and rewrites the same inode (no rename) changes size or mtime.
  std::string path = testing::make_temporary_directory() + "/current";
  std::ofstream(path) << "tests/x.py::a";
  CurrentTest tests({path, "", 0});
  EXPECT_EQ(name_of(tests, tests.current()), "tests/x.py::a");
  std::ofstream(path, std::ios::trunc) << "tests/x.py::bb";
  EXPECT_EQ(name_of(tests, tests.current()), "tests/x.py::bb");
}

TEST(CudaCurrentTest, IntervalFromEnvironment) {
  ::setenv("FASTCI_TEST_POLL_MS", "0.25", 1);
  ::setenv("FASTCI_CURRENT_TEST_FILE", "/nonexistent/current", 1);
  CurrentTestOptions options = CurrentTestOptions::from_environment();
  EXPECT_EQ(options.poll_interval_ns, 250'000u);
  EXPECT_EQ(options.file, "/nonexistent/current");
  ::setenv("FASTCI_TEST_POLL_MS", "not a number", 1);
  EXPECT_EQ(CurrentTestOptions::from_environment().poll_interval_ns, 1'000'000u);
  ::unsetenv("FASTCI_TEST_POLL_MS");
  ::unsetenv("FASTCI_CURRENT_TEST_FILE");
}

}  // namespace
}  // namespace fastci::cuda
