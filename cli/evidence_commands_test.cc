#include "cli/evidence_commands.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "evidence/store/store.h"
#include "util/exit_codes.h"

namespace fastci::cli {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(FASTCI_SHARED_DIR) / "data";

class EvidenceCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fastci-cli-evidence-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    options_.repository = dir_;  // not a git repository: the default store file is used
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  EvidenceCommandOptions options_;
};

TEST_F(EvidenceCommands, DefaultStoreIsTheFileTheAnalyzerReads) {
  EXPECT_EQ(evidence_store_url(options_), "sqlite://" + evidence::Store::default_path(dir_).string());
  options_.store = "postgresql://ci@db/evidence";
  EXPECT_EQ(evidence_store_url(options_), "postgresql://ci@db/evidence");
}

TEST_F(EvidenceCommands, IngestsRealFilesAndCountsThem) {
  if (!fs::exists(kData)) GTEST_SKIP() << kData << " is not here";
  options_.run_name = "ci-1";
  int rc = ingest_command(options_,
                          {kData / "junit/pytest/deepspeed-v0.14.2-cpu.junit.xml",
                           kData / "coverage/coveragepy/deepspeed-cpu.coverage.json"},
                          /*quiet=*/true);
  EXPECT_EQ(rc, util::kSuccess);
  auto store = evidence::Store::open(evidence_store_url(options_));
  ASSERT_TRUE(store.ok());
  auto stats = (*store)->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->runs, 1);       // one named run for both files
  // The JUnit file's 43 test cases, which the coverage contexts name too; coverage.py's empty
  // context (code run outside any test) is not a test.
  EXPECT_EQ(stats->tests, 43);
  EXPECT_EQ(stats->coverage_rows, 550);
  EXPECT_EQ(evidence_stats_command(options_), util::kSuccess);
}

TEST_F(EvidenceCommands, ABadFileFailsTheCommandAndLeavesTheStoreAsItWas) {
  fs::path bad = dir_ / "broken.xml";
  { std::ofstream(bad) << "<testsuite><testcase name=\"a\""; }
  EXPECT_EQ(ingest_command(options_, {bad}, true), util::kInputError);
  auto store = evidence::Store::open(evidence_store_url(options_));
  ASSERT_TRUE(store.ok());
  auto stats = (*store)->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->runs, 0);
  EXPECT_EQ(stats->results, 0);
}

TEST_F(EvidenceCommands, GcKeepsTheNewestRealRuns) {
  if (!fs::exists(kData)) GTEST_SKIP() << kData << " is not here";
  for (const char* run : {"ci-1", "ci-2", "ci-3"}) {
    options_.run_name = run;
    ASSERT_EQ(ingest_command(options_, {kData / "junit/pytest/deepspeed-v0.14.2-cpu.junit.xml"}, true), util::kSuccess);
  }
  EXPECT_EQ(evidence_gc_command(options_, -1, -1, false), util::kUsageError);  // no limit given
  EXPECT_EQ(evidence_gc_command(options_, 1, -1, /*dry_run=*/true), util::kSuccess);
  auto store = evidence::Store::open(evidence_store_url(options_));
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->runs()->size(), 3u);  // a dry run deletes nothing
  EXPECT_EQ(evidence_gc_command(options_, 1, -1, false), util::kSuccess);
  auto runs = (*store)->runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().name, "ci-3");
}

}  // namespace
}  // namespace fastci::cli
