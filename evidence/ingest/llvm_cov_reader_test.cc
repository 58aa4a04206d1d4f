#include "evidence/ingest/llvm_cov_reader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "evidence/ingest/lcov_reader.h"
#include "evidence/ingest/lcov_recording_sink.h"

namespace fastci::evidence {
namespace {

const std::filesystem::path kFixtures =
    std::filesystem::path(FASTCI_SOURCE_DIR) / "tests/fixtures/evidence_native/wordstats";

std::string read_head(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

std::map<std::string, std::vector<LineRange>> lines_by_file(const TestEvidence& test) {
  std::map<std::string, std::vector<LineRange>> result;
  for (const auto& file : test.coverage) result[file.path] = file.lines;
  return result;
}

// The oracle is llvm-cov itself: `llvm-cov export -format=lcov` of the same profile
// (clang-<test>.llvm-cov.lcov.info, written by make_fixtures.sh) lists the lines llvm-cov counts
// as executed (DA count > 0). The JSON reader must find exactly those lines from the segments.
TEST(LlvmCovReader, LinesMatchLlvmCovOwnLcovExport) {
  for (const char* test : {"split", "count"}) {
    RecordingSink json, lcov;
    const auto status = read_llvm_cov(kFixtures / (std::string("clang-") + test + ".llvm-cov.json"), json,
                                      LlvmCovOptions{.test_id = test});
    ASSERT_TRUE(status.ok()) << status.error().to_string();
    ASSERT_TRUE(read_lcov(kFixtures / (std::string("clang-") + test + ".llvm-cov.lcov.info"), lcov,
                          LcovOptions{.default_test_id = test}).ok());
    EXPECT_EQ(json.runs.at(0).source_format, "llvm-cov");
    EXPECT_EQ(lines_by_file(json.tests.at(test)), lines_by_file(lcov.tests.at(test))) << test;
  }
}

TEST(LlvmCovReader, SplitRunExactLines) {
  // Counted from clang-split.llvm-cov.lcov.info with grep '^DA:' | awk -F, '$2 > 0'.
  RecordingSink sink;
  ASSERT_TRUE(read_llvm_cov(kFixtures / "clang-split.llvm-cov.json", sink).ok());
  const auto files = lines_by_file(sink.tests.at(""));
  EXPECT_EQ(files.at("wordstats.cc"), (std::vector<LineRange>{{16, 24}, {29, 32}, {35, 37}, {41, 42}}));
  EXPECT_EQ(files.at("wordstats.h"), (std::vector<LineRange>{{12, 27}}));
  EXPECT_EQ(files.size(), 2u);
}

TEST(LlvmCovReader, SkippedAndGapRegionsDoNotCount) {
  // A function at lines 1-5 that ran twice, with a skipped (#if 0) region on line 3 and a gap
  // region starting on line 4: segments as llvm-cov writes them.
  const std::vector<CoverageSegment> segments = {
      {1, 10, 2, true, true, false}, {3, 1, 0, false, true, false}, {3, 20, 2, true, false, false},
      {4, 5, 0, true, true, true},   {5, 2, 0, false, false, false}};
  EXPECT_EQ(executed_lines(segments), (std::vector<int>{1, 2, 4}));
  EXPECT_TRUE(executed_lines({}).empty());
}

TEST(LlvmCovReader, MalformedInputIsAnError) {
  const auto dir = std::filesystem::temp_directory_path() / ("fastci_llvm_cov_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
  };
  RecordingSink sink;
  const std::string head = "{\"data\":[{\"files\":[{\"filename\":\"a.cc\",\"segments\":";
  const std::string tail = "}]}],\"type\":\"llvm.coverage.json.export\",\"version\":\"2.0.1\"}";
  auto status = read_llvm_cov(write("ok.json", head + "[[1,1,1,true,true,false],[2,1,0,false,false,false]]" + tail), sink);
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  status = read_llvm_cov(write("unsorted.json", head + "[[5,1,1,true,true,false],[2,1,0,false,false,false]]" + tail), sink);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("segments[1]"), std::string::npos) << status.error().to_string();
  status = read_llvm_cov(write("short.json", head + "[[1,1,1]]" + tail), sink);
  ASSERT_FALSE(status.ok());
  status = read_llvm_cov(write("type.json", "{\"data\":[],\"type\":\"something.else\"}"), sink);
  ASSERT_FALSE(status.ok());
  status = read_llvm_cov(write("cut.json", head + "[[1,1,1,true"), sink);
  ASSERT_FALSE(status.ok());
  std::filesystem::remove_all(dir);
}

TEST(LlvmCovReader, Sniffs) {
  EXPECT_TRUE(sniff_llvm_cov(read_head(kFixtures / "clang-split.llvm-cov.json"), "x.json"));
  EXPECT_FALSE(sniff_llvm_cov(read_head(kFixtures / "gcc-split.gcov.json.gz"), "x.gcov.json.gz"));
  EXPECT_FALSE(sniff_llvm_cov("{\"traceEvents\": []}", "t.json"));
}

}  // namespace
}  // namespace fastci::evidence
