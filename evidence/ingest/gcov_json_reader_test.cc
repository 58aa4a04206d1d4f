#include "evidence/ingest/gcov_json_reader.h"

#include <gtest/gtest.h>

#include <fstream>

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

const FileCoverage* find_file(const TestEvidence& test, std::string_view path) {
  for (const auto& file : test.coverage) {
    if (file.path == path) return &file;
  }
  return nullptr;
}

// Expected values: Python's json over the same files, lines with "count" > 0 per "file"
// (see tests/fixtures/evidence_native/README.md). `wordstats split` runs split(), longest() and
// main's split branch; `wordstats count` runs split(), count() and main's count branch.
TEST(GcovJsonReader, ReadsGzippedGcovOutput) {
  RecordingSink sink;
  const auto status = read_gcov_json(kFixtures / "gcc-split.gcov.json.gz", sink, GcovJsonOptions{.test_id = "wordstats split"});
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  ASSERT_EQ(sink.runs.size(), 1u);
  EXPECT_EQ(sink.runs[0].source_format, "gcov-json");
  const auto& test = sink.tests.at("wordstats split");
  EXPECT_EQ(test.coverage.size(), 19u);  // wordstats.{h,cc} and 17 libstdc++ headers with a hit line
  EXPECT_EQ(sink.covered_lines("wordstats split"), 215);
  const FileCoverage* main_file = find_file(test, "wordstats.cc");
  ASSERT_NE(main_file, nullptr);
  EXPECT_EQ(main_file->lines, (std::vector<LineRange>{{16, 20}, {23, 23}, {29, 32}, {35, 36}, {41, 42}}));
  const FileCoverage* header = find_file(test, "wordstats.h");
  ASSERT_NE(header, nullptr);
  EXPECT_EQ(header->lines, (std::vector<LineRange>{{12, 19}, {22, 22}, {25, 27}}));
}

TEST(GcovJsonReader, PlainStdoutOutputGivesTheSameLines) {
  RecordingSink gz, plain;
  ASSERT_TRUE(read_gcov_json(kFixtures / "gcc-split.gcov.json.gz", gz).ok());
  const auto status = read_gcov_json(kFixtures / "gcc-split.gcov.json", plain);
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  EXPECT_EQ(plain.covered_lines(""), 215);
  EXPECT_EQ(plain.tests.at("").coverage.size(), gz.tests.at("").coverage.size());
}

TEST(GcovJsonReader, CountRunCoversCountNotLongest) {
  RecordingSink sink;
  ASSERT_TRUE(read_gcov_json(kFixtures / "gcc-count.gcov.json.gz", sink).ok());
  EXPECT_EQ(sink.tests.at("").coverage.size(), 25u);
  EXPECT_EQ(sink.covered_lines(""), 453);
  EXPECT_EQ(find_file(sink.tests.at(""), "wordstats.cc")->lines,
            (std::vector<LineRange>{{8, 11}, {13, 13}, {29, 35}, {41, 42}}));
}

TEST(GcovJsonReader, MalformedInputIsAnError) {
  const auto dir = std::filesystem::temp_directory_path() / ("fastci_gcov_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
  };
  RecordingSink sink;
  auto status = read_gcov_json(write("a.json", "{\"format_version\": \"1\", \"files\": [{\"file\": \"a.cc\", \"lines\": [{\"line_number\": 0, \"count\": 1}]}]}"), sink);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("files[0].lines[0].line_number"), std::string::npos) << status.error().to_string();
  status = read_gcov_json(write("b.json", "{\"format_version\": \"1\", \"files\": [{\"file\": \"a.cc\", \"lines\": [{\"line_number\": 3, \"count\": -1}]}]}"), sink);
  ASSERT_FALSE(status.ok());
  status = read_gcov_json(write("c.json", "{\"format_version\": \"1\", \"files\": []}\n{\"format_version\": \"1\", \"files\": [}\n"), sink);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().line, 2) << status.error().to_string();
  status = read_gcov_json(write("d.json", "TN:\nSF:a.cc\n"), sink);
  EXPECT_FALSE(status.ok());
  status = read_gcov_json(write("e.json", ""), sink);
  EXPECT_FALSE(status.ok());
  status = read_gcov_json(write("f.json", "{\"format_version\": \"1\", \"files\": [{\"file\": \"a.cc\", \"lines\": []}]"), sink);
  EXPECT_FALSE(status.ok());
  std::filesystem::remove_all(dir);
}

TEST(GcovJsonReader, Sniffs) {
  EXPECT_TRUE(sniff_gcov_json(read_head(kFixtures / "gcc-split.gcov.json.gz"), "x.gcov.json.gz"));
  EXPECT_TRUE(sniff_gcov_json(read_head(kFixtures / "gcc-split.gcov.json"), "x.gcov.json"));
  EXPECT_FALSE(sniff_gcov_json(read_head(kFixtures / "clang-split.llvm-cov.json"), "x.json"));
  EXPECT_FALSE(sniff_gcov_json("{\"traceEvents\": []}", "t.json"));
}

}  // namespace
}  // namespace fastci::evidence
