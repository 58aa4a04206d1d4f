// Readers on real files from /work/shared/data. Expected numbers were counted independently with
// Python (sqlite3 over the coverage.py data, xml.etree over the JUnit reports, json for the JSON).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <sqlite3.h>

#include "evidence/ingest/junit_xml.h"
#include "evidence/ingest/reader.h"
#include "evidence/store/ingest_files.h"
#include "evidence/store/store.h"

namespace fastci::evidence {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(FASTCI_SHARED_DIR) / "data";

class ReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fastci-readers-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    auto store = Store::open((dir_ / "e.db").string());
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    store_ = std::move(*store);
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  FileIngestSummary ingest(const fs::path& file, const std::string& format = "auto", IngestOptions options = {}) {
    auto summary = ingest_files(*store_, {file}, format, options);
    EXPECT_TRUE(summary.ok());
    FileIngestSummary one = summary->files.at(0);
    EXPECT_FALSE(one.error) << one.error->to_string();
    return one;
  }
  fs::path dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(ReaderTest, CoveragePySqliteWithTestContexts) {
  IngestOptions options;
  options.root = "/ci/DeepSpeed";
  auto summary = ingest(kData / "coverage/coveragepy/deepspeed-cpu.coverage.sqlite", "auto", options);
  EXPECT_EQ(summary.format, "coveragepy-sqlite");
  // 120 contexts: "" plus setup/run/teardown of 43 node ids -> 44 test ids ("" included).
  EXPECT_EQ(summary.tests, 44u);
  // Distinct (test, file) pairs with arcs: 553 ("" covers 467 files, 43 setups 2 each).
  EXPECT_EQ(summary.coverage_rows, 553u);
  EXPECT_EQ(summary.files, 467u);
  auto tests = store_->all_tests();
  ASSERT_TRUE(tests.ok());
  EXPECT_EQ(tests->size(), 43u);
  auto coverage = store_->coverage_of("unit/comm/test_dist.py::TestDistInit::test_no_init[True]");
  ASSERT_TRUE(coverage.ok());
  ASSERT_EQ(coverage->size(), 2u);
  EXPECT_EQ((*coverage)[0].coverage.path, "accelerator/cpu_accelerator.py");
  EXPECT_EQ((*coverage)[0].coverage.lines, (std::vector<LineRange>{{49, 49}, {64, 66}, {197, 197}}));
  EXPECT_EQ((*coverage)[0].coverage.arcs.size(), 8u);
  EXPECT_EQ((*coverage)[1].coverage.lines, (std::vector<LineRange>{{53, 54}}));
  // 33 '|run' contexts recorded nothing: warned, not silently empty.
  bool warned = false;
  for (const Warning& w : summary.warnings) warned |= w.message.find("33 of 43") != std::string::npos;
  EXPECT_TRUE(warned);
  auto comm = store_->tests_covering("deepspeed/comm/comm.py", {1, 100000}, true);
  ASSERT_TRUE(comm.ok());
  ASSERT_EQ(comm->size(), 1u);  // only import-time code ("" context) reached comm.py
}

TEST_F(ReaderTest, CoveragePySqliteWithNonUtf8TextIsReadNotThrown) {
  // Found by the libFuzzer target: a meta value that is not UTF-8 made the JSON dump of the run's
  // environment throw out of the reader.
  fs::path copy = dir_ / "latin1.coverage";
  fs::copy_file(kData / "coverage/coveragepy/deepspeed-cpu.coverage.sqlite", copy);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(copy.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE meta SET value = CAST(X'6361ff' AS TEXT) WHERE key = 'version'", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto summary = ingest(copy, "coveragepy-sqlite");
  EXPECT_EQ(summary.tests, 44u);
}

TEST_F(ReaderTest, CoveragePySqliteTestFunctionContexts) {
  IngestOptions options;
  options.root = "/ci/DeepSpeed/";
  auto summary = ingest(kData / "coverage/coveragepy/deepspeed-cpu.mp-test_function.coverage.sqlite", "auto", options);
  EXPECT_EQ(summary.tests, 18u);           // 18 contexts, each its own test id
  EXPECT_EQ(summary.coverage_rows, 581u);  // distinct (context, file) pairs with arcs
  auto comm = store_->tests_covering("deepspeed/comm/comm.py", {1, 100000});
  ASSERT_TRUE(comm.ok());
  EXPECT_EQ(comm->size(), 13u);  // 14 contexts cover comm.py, one of them ""
}

TEST_F(ReaderTest, CoveragePyJson) {
  auto summary = ingest(kData / "coverage/coveragepy/deepspeed-cpu.coverage.json");
  EXPECT_EQ(summary.format, "coveragepy-json");
  EXPECT_EQ(summary.tests, 44u);           // test ids in the per-line context lists, "" included
  EXPECT_EQ(summary.coverage_rows, 550u);  // distinct (test, file) pairs in those lists
}

TEST_F(ReaderTest, JunitPytest) {
  auto summary = ingest(kData / "junit/pytest/deepspeed-v0.14.2-cpu.junit.xml");
  EXPECT_EQ(summary.format, "junit");
  EXPECT_EQ(summary.tests, 43u);
  auto latest = store_->latest_results();
  ASSERT_TRUE(latest.ok());
  int passed = 0, skipped = 0;
  double total = 0;
  for (const HistoryEntry& e : *latest) {
    passed += e.outcome == Outcome::passed;
    skipped += e.outcome == Outcome::skipped;
    total += e.duration_seconds.value_or(0);
  }
  EXPECT_EQ(passed, 33);
  EXPECT_EQ(skipped, 10);
  EXPECT_NEAR(total, 155.078, 1e-6);  // sum of testcase time attributes
  // Node ids rebuilt from classname match coverage.py's contexts exactly.
  IngestOptions options;
  options.root = "/ci/DeepSpeed";
  ingest(kData / "coverage/coveragepy/deepspeed-cpu.coverage.sqlite", "coveragepy-sqlite", options);
  auto tests = store_->all_tests();
  ASSERT_TRUE(tests.ok());
  EXPECT_EQ(tests->size(), 43u);
}

TEST_F(ReaderTest, JunitGoogleTestOutcomes) {
  auto summary = ingest(kData / "junit/googletest/gtest_xml_output_unittest_.xml");
  EXPECT_EQ(summary.tests, 26u);
  auto latest = store_->latest_results();
  ASSERT_TRUE(latest.ok());
  std::map<Outcome, int> counts;
  for (const HistoryEntry& e : *latest) counts[*e.outcome]++;
  EXPECT_EQ(counts[Outcome::passed], 17);
  EXPECT_EQ(counts[Outcome::failed], 5);   // SkippedAfterFailure counts as failed
  EXPECT_EQ(counts[Outcome::skipped], 4);  // 2 GTEST_SKIP + 2 DISABLED_ (status="notrun")
  auto history = store_->history("FailedTest.Fails");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_NE((*history)[0].message.find("Expected equality"), std::string::npos);
}

TEST_F(ReaderTest, JunitSamples) {
  int tests = 0;
  for (int i : {1, 2, 3, 4, 5, 6, 7, 8, 10}) {
    tests += static_cast<int>(ingest(kData / ("junit/googletest/sample" + std::to_string(i) + "_unittest.xml")).tests);
  }
  EXPECT_EQ(tests, 50);
}

TEST_F(ReaderTest, JunitMalformedNamesLine) {
  fs::create_directories(dir_);
  fs::path bad = dir_ / "bad.xml";
  {
    std::ofstream out(bad);
    out << "<?xml version=\"1.0\"?>\n<testsuites>\n<testsuite name=\"s\">\n<testcase name=\"a\" classname=\"X\">\n"
           "</testsuite>\n";
  }
  auto before = store_->stats();
  auto summary = ingest_files(*store_, {bad}, "junit", {});
  ASSERT_TRUE(summary.ok());
  ASSERT_TRUE(summary->files[0].error);
  EXPECT_EQ(summary->files[0].error->line, 5);
  auto after = store_->stats();
  EXPECT_EQ(before->results, after->results);
  EXPECT_EQ(before->runs, after->runs);
}

TEST_F(ReaderTest, PytestNodeIds) {
  EXPECT_EQ(pytest_node_id("unit.comm.test_dist.TestDistInit", "test_no_init[True]"),
            "unit/comm/test_dist.py::TestDistInit::test_no_init[True]");
  EXPECT_EQ(pytest_node_id("tests.test_mod", "test_f"), "tests/test_mod.py::test_f");
}

TEST_F(ReaderTest, FastciJsonlFixture) {
  auto summary = ingest(fs::path(FASTCI_SOURCE_DIR) / "tests/fixtures/evidence/fastci_pytest_run.jsonl");
  EXPECT_EQ(summary.format, "fastci-jsonl");
  EXPECT_EQ(summary.tests, 3u);  // two node ids and "" (a kernel launched outside any test)
  EXPECT_EQ(summary.coverage_rows, 1u);
  EXPECT_EQ(summary.contexts, 1u);
  EXPECT_EQ(summary.kernels, 1u);
  ASSERT_EQ(summary.warnings.size(), 1u);  // the unknown "profile" record
  EXPECT_EQ(summary.warnings[0].line, 7);
  auto hits = store_->tests_covering("deepspeed/comm/comm.py", {610, 620});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].lines, (std::vector<LineRange>{{610, 612}}));
  EXPECT_EQ((*hits)[0].commit, "5f631abc2f930ecece38fae05dc9bd3923c555dd");
  auto contexts = store_->contexts_for_function("deepspeed/comm/comm.py::init");
  ASSERT_TRUE(contexts.ok());
  EXPECT_EQ(contexts->size(), 1u);
}

}  // namespace
}  // namespace fastci::evidence
