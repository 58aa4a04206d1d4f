#include "cuda/evidence_writer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cuda/fixture_runner.h"

namespace fastci::cuda {
namespace {

TEST(CudaEvidenceWriter, QuotesControlCharactersAndQuotes) {
  EXPECT_EQ(json_quote("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  EXPECT_EQ(nlohmann::json::parse(json_quote("tests/x.py::t[\"q\"-\\]")), "tests/x.py::t[\"q\"-\\]");
}

TEST(CudaEvidenceWriter, LinesFollowTheEvidenceFormat) {
  RunInfo run{"libfastci_launch 0.1", "2026-12-02T18:00:00Z", "abc123", "host", {{"pid", "42"}}};
  nlohmann::json run_line = nlohmann::json::parse(format_run_line(run));
  EXPECT_EQ(run_line["type"], "run");
  EXPECT_EQ(run_line["schema"], 1);
  EXPECT_EQ(run_line["commit"], "abc123");
  EXPECT_EQ(run_line["environment"]["pid"], "42");
  EXPECT_EQ(run_line["collector"], "libfastci_launch 0.1");

  std::vector<std::pair<LaunchKey, LaunchTotals>> launches{
      {LaunchKey{1, 0, {2, 3, 1}, {64, 1, 1}, 128}, {5, 12.5}},
      {LaunchKey{0, 1, {1, 1, 1}, {32, 1, 1}, 0}, {1, 0}},
  };
  auto records = kernel_records(launches, {"", "tests/t.py::test_x"}, {"_Z5scaleIfLi4EEvPT_S0_", "ampere_sgemm_64x64_nn"},
                                true);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].test, "");  // sorted by test first
  nlohmann::json kernel = nlohmann::json::parse(format_kernel_line(records[1]));
  EXPECT_EQ(kernel["type"], "kernel");
  EXPECT_EQ(kernel["test"], "tests/t.py::test_x");
  EXPECT_EQ(kernel["name"], "void scale<float, 4>(float*, float)");
  EXPECT_EQ(kernel["grid"], "2,3,1");
  EXPECT_EQ(kernel["block"], "64,1,1");
  EXPECT_EQ(kernel["shared_memory"], 128);
  EXPECT_EQ(kernel["template_arguments"], nlohmann::json({"float", "4"}));
  EXPECT_EQ(kernel["count"], 5);
  EXPECT_DOUBLE_EQ(kernel["total_duration_us"].get<double>(), 12.5);

  records[1].timed = false;
  EXPECT_FALSE(nlohmann::json::parse(format_kernel_line(records[1])).contains("total_duration_us"));
}

TEST(CudaEvidenceWriter, WritesAtomicallyAndNamesTheFileOnError) {
  std::string directory = testing::make_temporary_directory() + "/a/b";
  ASSERT_TRUE(make_directories(directory));
  std::string path = evidence_path(directory, "launch", 77);
  EXPECT_EQ(path, directory + "/fastci-launch-77.jsonl");
  ASSERT_TRUE(write_file_atomically(path, "one\n").ok());
  ASSERT_TRUE(write_file_atomically(path, "two\n").ok());
  std::stringstream content;
  content << std::ifstream(path).rdbuf();
  EXPECT_EQ(content.str(), "two\n");
  EXPECT_EQ(testing::list_directory(directory).size(), 1u);  // no temporary left behind

  util::Status failed = write_file_atomically("/proc/no-such-dir/x.jsonl", "x");
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().to_string().find("/proc/no-such-dir/x.jsonl"), std::string::npos);
  EXPECT_FALSE(make_directories("/proc/no-such-dir/y"));
}

}  // namespace
}  // namespace fastci::cuda
