#include "evidence/ingest/lcov_reader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "evidence/ingest/lcov_recording_sink.h"

namespace fastci::evidence {
namespace {

const std::filesystem::path kLcov = std::filesystem::path(FASTCI_SHARED_DIR) / "data/coverage/lcov";

std::string read_head(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

// Expected counts below come from an independent Python pass over the gzipped tracefiles:
// for each TN, sum DA counts per (SF, line) across repeated SF records, then count the
// (SF, line) pairs with a sum > 0 ("lines hit") and the distinct SF among them ("files hit").
TEST(LcovReader, GoogletestSample1MergesRepeatedSourceRecords) {
  RecordingSink sink;
  const auto file = kLcov / "generated/googletest-1.12.1/sample1_unittest.info.gz";
  const auto status = read_lcov(file, sink);
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  ASSERT_EQ(sink.runs.size(), 1u);
  EXPECT_EQ(sink.runs[0].source_format, "lcov");
  ASSERT_EQ(sink.tests.size(), 1u);
  const auto& test = sink.tests.at("sample1_unittest");
  EXPECT_EQ(test.coverage.size(), 49u);  // 93 SF records, 72 distinct files, 49 with a hit line
  EXPECT_EQ(sink.covered_lines("sample1_unittest"), 2094);
  for (const auto& coverage : test.coverage) {
    for (std::size_t i = 1; i < coverage.lines.size(); ++i) {
      EXPECT_GT(coverage.lines[i].first, coverage.lines[i - 1].second + 1) << "ranges must be merged";
    }
  }
  EXPECT_TRUE(sink.warnings.empty()) << sink.warnings.front().line << ": " << sink.warnings.front().message;
}

TEST(LcovReader, MergedTracefileKeepsEveryTestName) {
  RecordingSink sink;
  const auto status = read_lcov(kLcov / "generated/googletest-1.12.1/all-12-binaries.merged.info.gz", sink);
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  ASSERT_EQ(sink.tests.size(), 12u);
  const std::map<std::string, std::pair<std::size_t, long long>> expected = {
      {"gtest_skip_test", {49, 2292}},   {"gtest_xml_output_unittest_", {61, 3209}},
      {"sample10_unittest", {46, 2064}}, {"sample1_unittest", {49, 2094}},
      {"sample2_unittest", {50, 2104}},  {"sample3_unittest", {49, 2131}},
      {"sample4_unittest", {50, 2054}},  {"sample5_unittest", {50, 2153}},
      {"sample6_unittest", {55, 2513}},  {"sample7_unittest", {59, 2540}},
      {"sample8_unittest", {62, 2881}},  {"sample9_unittest", {51, 2405}}};
  for (const auto& [test, counts] : expected) {
    ASSERT_TRUE(sink.tests.contains(test)) << test;
    EXPECT_EQ(sink.tests.at(test).coverage.size(), counts.first) << test;
    EXPECT_EQ(sink.covered_lines(test), counts.second) << test;
  }
}

TEST(LcovReader, ValidLcov2FixturesAreAccepted) {
  // a.info (handwritten by the lcov maintainers): DA 1 and 4 hit in a.cpp. Its totals disagree
  // with its records (BRF:5 for 7 BRDA entries at line 36, BRH:4 for 3 taken at line 37), and
  // noCommonAlias (FN:3,3) is called once (FNDA at line 23) while DA:3 is 0. `fcn` never ran but
  // its alias `alias` (same lines 1-2) did, which is not an inconsistency.
  RecordingSink sink;
  auto status = read_lcov(kLcov / "valid/merge/a.info", sink);
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  ASSERT_EQ(sink.tests.at("").coverage.size(), 1u);
  EXPECT_EQ(sink.tests.at("").coverage[0].path, "a.cpp");
  EXPECT_EQ(sink.tests.at("").coverage[0].lines, (std::vector<LineRange>{{1, 1}, {4, 4}}));
  ASSERT_EQ(sink.warnings.size(), 3u);
  EXPECT_EQ(sink.warnings[0].line, 36);
  EXPECT_NE(sink.warnings[0].message.find("BRF:5 but the record has 7"), std::string::npos);
  EXPECT_EQ(sink.warnings[1].line, 37);
  EXPECT_NE(sink.warnings[1].message.find("BRH:4 but the record has 3"), std::string::npos);
  EXPECT_EQ(sink.warnings[2].line, 23);
  EXPECT_NE(sink.warnings[2].message.find("'noCommonAlias' ran 1 times"), std::string::npos);

  // functionBug_2.dat: "SF: my_file.cpp" (leading space) and C++ signatures with commas in FN names.
  RecordingSink bug;
  status = read_lcov(kLcov / "valid/merge/functionBug_2.dat", bug);
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  EXPECT_EQ(bug.tests.at("").coverage.at(0).path, "my_file.cpp");

  for (const char* name : {"valid/errs/exceptionBranch1.info", "valid/errs/exceptionBranch2.info",
                           "valid/merge/b.info", "valid/merge/a.dat", "valid/merge/b.dat",
                           "valid/merge/functionBug_1.dat", "valid/merge/mcdc.dat"}) {
    RecordingSink other;
    status = read_lcov(kLcov / name, other);
    EXPECT_TRUE(status.ok()) << name << ": " << status.error().to_string();
  }
}

struct MalformedCase {
  const char* file;
  int line;
  const char* expected;  // a fragment of the message
};

TEST(LcovReader, MalformedFixturesFailAtTheOffendingLine) {
  // Lines checked with `grep -n` on each fixture: the first offending record decides.
  const MalformedCase cases[] = {
      {"malformed/errs/badBranchLine.info", 6, "DA line 0 out of range"},  // DA:0,0 precedes BRDA:0
      {"malformed/errs/badFncEndLine.info", 5, "FN end line 0 out of range"},
      {"malformed/errs/badFncLine.info", 4, "FN start line 0 out of range"},
      {"malformed/errs/badLine.info", 6, "DA line 0 out of range"},
      {"malformed/errs/emptyFileRecord.info", 37, "empty file name in SF:"},
      {"malformed/errs/fncMismatch.info", 6, "ends at line 38, not 45"},
      {"malformed/errs/noFunc.info", 6, "FNDA for function 'noSuchFunc' which has no FN record"},
      {"malformed/format/format.info", 7, "negative count '-3'"},
  };
  for (const auto& c : cases) {
    RecordingSink sink;
    const auto file = kLcov / c.file;
    const auto status = read_lcov(file, sink);
    ASSERT_FALSE(status.ok()) << c.file;
    EXPECT_EQ(status.error().file, file.string());
    EXPECT_EQ(status.error().line, c.line) << c.file << ": " << status.error().to_string();
    EXPECT_NE(status.error().message.find(c.expected), std::string::npos) << status.error().to_string();
  }
}

struct InconsistentCase {
  const char* file;
  std::vector<std::pair<int, std::string>> warnings;  // line, message fragment, in report order
};

TEST(LcovReader, InconsistentFixturesWarnAtTheOffendingLine) {
  const InconsistentCase cases[] = {
      {"malformed/errs/funcNoLine.info", {{11, "BRH:1 but the record has 0"}, {5, "function 'main' ran 1 times but none of its lines 12-30"}}},
      {"malformed/errs/lineNoFunc.info",
       {{21, "LH:0 but the record has 2"}, {11, "BRH:1 but the record has 0"}, {5, "function 'main' never ran but a line inside it"}}},
      {"malformed/errs/branchNoLine.info", {{21, "LH:0 but the record has 2"}, {9, "branch on line 15 was taken but DA says"}}},
          // The "line ran, no branch taken" pattern itself is not reported: real gcov output has it
      // (unmarked call-throw branches), see lcov_reader.cc. Its totals still disagree.
      {"malformed/errs/lineNoBranch.info", {{21, "LH:0 but the record has 3"}, {11, "BRH:1 but the record has 0"}}},
  };
  for (const auto& c : cases) {
    RecordingSink sink;
    const auto status = read_lcov(kLcov / c.file, sink);
    ASSERT_TRUE(status.ok()) << status.error().to_string();
    ASSERT_EQ(sink.warnings.size(), c.warnings.size()) << c.file;
    for (std::size_t i = 0; i < c.warnings.size(); ++i) {
      EXPECT_EQ(sink.warnings[i].line, c.warnings[i].first) << c.file << ": " << sink.warnings[i].message;
      EXPECT_NE(sink.warnings[i].message.find(c.warnings[i].second), std::string::npos)
          << c.file << ": " << sink.warnings[i].message;
    }
  }
}

TEST(LcovReader, GarbageAndTruncationAreErrors) {
  const auto dir = std::filesystem::temp_directory_path() / "fastci_lcov_test";
  std::filesystem::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
  };
  RecordingSink sink;
  auto status = read_lcov(write("json.info", "{\"traceEvents\": []}\n"), sink);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().line, 1);
  status = read_lcov(write("truncated.info", "TN:t\nSF:a.cc\nDA:1,1\n"), sink);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("expected end_of_record"), std::string::npos);
  status = read_lcov(write("outside.info", "DA:1,1\n"), sink);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("expected SF: first"), std::string::npos);
  status = read_lcov(write("format.info", "SF:a.cc\nDA:3,1.5eb+20\nend_of_record\n"), sink);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().line, 2);
  status = read_lcov(write("empty.info", ""), sink);
  EXPECT_FALSE(status.ok());
  status = read_lcov(dir / "missing.info", sink);
  EXPECT_FALSE(status.ok());
  std::filesystem::remove_all(dir);
}

TEST(LcovReader, DefaultTestIdNamesRecordsWithoutTn) {
  RecordingSink sink;
  const auto status = read_lcov(kLcov / "valid/merge/a.dat", sink, LcovOptions{.default_test_id = "suite.case"});
  ASSERT_TRUE(status.ok());
  ASSERT_TRUE(sink.tests.contains("suite.case"));
  // a.dat: DA lines 7-9, 12-15, 18-20, 23-25 all hit in tracer_singleton.cpp.
  EXPECT_EQ(sink.tests.at("suite.case").coverage.at(0).lines,
            (std::vector<LineRange>{{7, 9}, {12, 15}, {18, 20}, {23, 25}}));
}

TEST(LcovReader, SniffsPlainAndGzippedTracefiles) {
  EXPECT_TRUE(sniff_lcov(read_head(kLcov / "valid/merge/a.info"), "a.info"));
  EXPECT_TRUE(sniff_lcov(read_head(kLcov / "valid/merge/b.info"), "b.info"));  // starts with a comment
  const auto gz = kLcov / "generated/googletest-1.12.1/sample1_unittest.info.gz";
  EXPECT_TRUE(sniff_lcov(read_head(gz), gz));
  EXPECT_FALSE(sniff_lcov("{\"traceEvents\": []}", "trace.json"));
  EXPECT_FALSE(sniff_lcov("<?xml version=\"1.0\"?><testsuites/>", "junit.xml"));
}

}  // namespace
}  // namespace fastci::evidence
