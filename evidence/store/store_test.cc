#include "evidence/store/store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "evidence/store/coverage_codec.h"
#include "evidence/store/sql_connection.h"
#include "evidence/store/store_test_support.h"

namespace fastci::evidence {
namespace {

namespace fs = std::filesystem;

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("fastci-store-" + std::to_string(::getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
    url_ = "sqlite://" + (directory_ / "evidence.db").string();
  }
  void TearDown() override { fs::remove_all(directory_); }

  std::unique_ptr<Store> open() {
    auto store = Store::open(url_);
    EXPECT_TRUE(store.ok()) << (store.ok() ? "" : store.error().to_string());
    return store.ok() ? std::move(*store) : nullptr;
  }

  fs::path directory_;
  std::string url_;
};

TEST(CoverageCodec, RoundTripsRangesAndArcs) {
  std::vector<LineRange> ranges = normalize_ranges({{10, 12}, {1, 3}, {4, 4}, {20, 25}, {22, 30}, {0, 5}});
  ASSERT_EQ(ranges, (std::vector<LineRange>{{1, 4}, {10, 12}, {20, 30}}));
  auto decoded = decode_lines(encode_lines(ranges));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, ranges);
  auto inside = decode_lines_in(encode_lines(ranges), {3, 21});
  ASSERT_TRUE(inside);
  EXPECT_EQ(*inside, (std::vector<LineRange>{{3, 4}, {10, 12}, {20, 21}}));
  std::vector<Arc> arcs = {{-1, 5}, {5, 6}, {6, -1}, {5, 6}, {12, 3}};
  auto decoded_arcs = decode_arcs(encode_arcs(arcs));
  ASSERT_TRUE(decoded_arcs);
  EXPECT_EQ(*decoded_arcs, (std::vector<Arc>{{-1, 5}, {5, 6}, {6, -1}, {12, 3}}));
  EXPECT_EQ(ranges_from_lines({5, 3, 4, 9, 9, 0}), (std::vector<LineRange>{{3, 5}, {9, 9}}));
}

TEST(CoverageCodec, RejectsCorruptBytes) {
  EXPECT_FALSE(decode_lines(std::string("\x80", 1)));          // truncated varint
  EXPECT_FALSE(decode_lines(std::string("\x05", 1)));          // range without length
  EXPECT_FALSE(decode_lines(std::string("\x01\x00\x00\x00", 4)));  // adjacent ranges are never stored
  EXPECT_FALSE(decode_arcs(std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00", 11)));
}

TEST(StoreUrl, RedactsPasswords) {
  EXPECT_EQ(redact_url("postgresql://ci:s3cr3t@db.example:5432/fastci"), "postgresql://ci:***@db.example:5432/fastci");
  EXPECT_EQ(redact_url("postgres://db/fastci?user=ci&password=s3cr3t&sslmode=require"),
            "postgres://db/fastci?user=ci&password=***&sslmode=require");
  EXPECT_EQ(redact_url("host=/tmp port=5432 password='a b' user=x"), "host=/tmp port=5432 password=*** user=x");
}

TEST(StoreUrl, RejectsUnknownScheme) {
  auto store = Store::open("mysql://user:pw@host/db");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().to_string().find("pw"), std::string::npos) << store.error().to_string();
}

TEST(StoreUrl, DefaultPathIsUnderDotFastci) {
  EXPECT_EQ(Store::default_path("/repo"), fs::path("/repo/.fastci/evidence.db"));
}

TEST_F(SqliteStoreTest, IngestsAndAnswersQueries) {
  auto store = open();
  ASSERT_TRUE(store);
  auto ingested = store->ingest(synthetic_producer(/*first_test=*/0, /*tests=*/5, /*files=*/4, "c0ffee"),
                                "synthetic", "mem");
  ASSERT_TRUE(ingested.ok()) << ingested.error().to_string();
  EXPECT_EQ(ingested->tests, 5u);
  EXPECT_EQ(ingested->files, 4u);
  expect_synthetic_queries(*store, 5, 4);
}

TEST_F(SqliteStoreTest, MergesRepeatedTestsAndNamedRuns) {
  auto store = open();
  ASSERT_TRUE(store);
  IngestOptions options;
  options.run_name = "ci-42";
  options.root = "/ci/repo";
  auto first = store->ingest(
      [](EvidenceSink& sink) {
        TestEvidence a;
        a.test_id = "t::a";
        a.outcome = Outcome::passed;
        a.coverage.push_back({"/ci/repo/pkg/mod.py", {{1, 3}}, {{1, 2}}});
        a.contexts.push_back({"/ci/repo/pkg/mod.py::f", {"/ci/repo/pkg/caller.py::g"}, "x:int[1]", {{1, 2}}, 2});
        sink.add_test(std::move(a));
        TestEvidence again;
        again.test_id = "t::a";
        again.duration_seconds = 1.5;
        again.coverage.push_back({"/ci/repo/pkg/mod.py", {{5, 6}}, {{2, 5}}});
        again.contexts.push_back({"/ci/repo/pkg/mod.py::f", {"/ci/repo/pkg/caller.py::g"}, "x:int[1]", {{1, 2}}, 3});
        sink.add_test(std::move(again));
        return util::Status{};
      },
      "synthetic", "one", options);
  ASSERT_TRUE(first.ok()) << first.error().to_string();
  auto second = store->ingest(
      [](EvidenceSink& sink) {
        TestEvidence a;
        a.test_id = "t::a";
        a.coverage.push_back({"/ci/repo/pkg/mod.py", {{4, 4}}, {}});
        a.kernels.push_back({"gemm", "1,1,1", "128,1,1", 0, {"float"}, 2, 0});
        sink.add_test(std::move(a));
        return util::Status{};
      },
      "synthetic", "two", options);
  ASSERT_TRUE(second.ok()) << second.error().to_string();
  EXPECT_EQ(first->run_id, second->run_id);

  auto covering = store->tests_covering("pkg/mod.py", {1, 100});
  ASSERT_TRUE(covering.ok());
  ASSERT_EQ(covering->size(), 1u);
  EXPECT_EQ((*covering)[0].lines, (std::vector<LineRange>{{1, 6}}));
  auto coverage = store->coverage_of("t::a");
  ASSERT_TRUE(coverage.ok());
  ASSERT_EQ(coverage->size(), 1u);
  EXPECT_EQ((*coverage)[0].coverage.arcs, (std::vector<Arc>{{1, 2}, {2, 5}}));
  auto contexts = store->contexts_of("t::a", "pkg/mod.py::");
  ASSERT_TRUE(contexts.ok());
  ASSERT_EQ(contexts->size(), 1u);
  EXPECT_EQ((*contexts)[0].context.count, 5u);
  EXPECT_EQ((*contexts)[0].context.callers, std::vector<std::string>{"pkg/caller.py::g"});
  auto history = store->history("t::a");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].outcome, Outcome::passed);
  EXPECT_EQ((*history)[0].duration_seconds, 1.5);
  auto launches = store->tests_launching("gem");
  ASSERT_TRUE(launches.ok());
  ASSERT_EQ(launches->size(), 1u);
  EXPECT_EQ((*launches)[0].launch.template_arguments, std::vector<std::string>{"float"});
}

TEST_F(SqliteStoreTest, FailedIngestLeavesStoreUnchanged) {
  auto store = open();
  ASSERT_TRUE(store);
  expect_failed_ingest_leaves_store_unchanged(*store);
}

TEST_F(SqliteStoreTest, KilledIngestLeavesStoreUnchanged) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->ingest(synthetic_producer(0, 10, 3, "aaaa"), "synthetic", "good").ok());
  }
  auto before = open()->stats();
  ASSERT_TRUE(before.ok());
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = Store::open(url_);
    if (!store) ::_exit(3);
    auto ignored = (*store)->ingest(
        [](EvidenceSink& sink) {
          util::Status written = synthetic_producer(100, 50, 5, "bbbb")(sink);
          (void)written;
          ::kill(::getpid(), SIGKILL);  // the process dies inside the transaction
          return util::Status{};
        },
        "synthetic", "killed");
    (void)ignored;
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  auto after = open()->stats();
  ASSERT_TRUE(after.ok());
  expect_same_counts(*before, *after);
}

TEST_F(SqliteStoreTest, ConcurrentWritersLoseNothing) {
  ASSERT_TRUE(open());  // create the schema once, as `fastci` would before a CI fan-out
  expect_concurrent_ingests_lose_nothing(url_, /*processes=*/8, /*tests_per_process=*/40, /*files=*/12);
}

TEST_F(SqliteStoreTest, ConcurrentFirstOpenMigratesOnce) {
  expect_concurrent_ingests_lose_nothing(url_, /*processes=*/8, /*tests_per_process=*/5, /*files=*/3);
  auto stats = open()->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->schema_version, 1);
}

TEST_F(SqliteStoreTest, GcKeepsTheNewestRuns) {
  auto store = open();
  ASSERT_TRUE(store);
  expect_gc_keeps_the_newest_runs(*store);
}

TEST(Retention, CountAndAgeLimitsAndUnreadableDates) {
  std::vector<RunInfo> runs(4);
  const char* dates[] = {"2026-11-01T00:00:00Z", "2026-11-20T00:00:00Z", "not a date", "2026-12-02T12:00:00Z"};
  for (int i = 0; i < 4; ++i) {
    runs[i].id = i + 1;
    runs[i].ingested_at = dates[i];
  }
  std::time_t now = 1796256000;  // 2026-12-03T00:00:00Z
  EXPECT_EQ(runs_to_delete(runs, {}, now), std::vector<std::int64_t>{});
  EXPECT_EQ(runs_to_delete(runs, {2, std::nullopt}, now), (std::vector<std::int64_t>{1, 2}));
  // Older than 20 days: only the first (32 days); the unreadable date is kept, never guessed old.
  EXPECT_EQ(runs_to_delete(runs, {std::nullopt, 20.0}, now), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(runs_to_delete(runs, {std::nullopt, 10.0}, now), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(runs_to_delete(runs, {2, 20.0}, now), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(runs_to_delete(runs, {0, std::nullopt}, now), (std::vector<std::int64_t>{1, 2, 3, 4}));
}

TEST_F(SqliteStoreTest, DeleteRunRemovesItsRows) {
  auto store = open();
  ASSERT_TRUE(store);
  auto first = store->ingest(synthetic_producer(0, 4, 2, "aaaa"), "synthetic", "a");
  ASSERT_TRUE(first.ok());
  auto before = store->stats();
  ASSERT_TRUE(store->ingest(synthetic_producer(0, 4, 2, "bbbb"), "synthetic", "b").ok());
  auto runs = store->runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  ASSERT_TRUE(store->delete_run(runs->back().id).ok());
  auto after = store->stats();
  expect_same_counts(*before, *after);
}

TEST_F(SqliteStoreTest, RefusesNewerSchema) {
  ASSERT_TRUE(open());
  auto connection = open_sqlite((directory_ / "evidence.db").string());
  ASSERT_TRUE(connection.ok());
  ASSERT_TRUE((*connection)->query("UPDATE schema_version SET version = 99", {}).ok());
  auto store = Store::open(url_);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find("newer"), std::string::npos) << store.error().to_string();
}

TEST_F(SqliteStoreTest, FormatsStats) {
  auto store = open();
  ASSERT_TRUE(store->ingest(synthetic_producer(0, 3, 2, "aaaa"), "synthetic", "a").ok());
  auto stats = store->stats();
  ASSERT_TRUE(stats.ok());
  std::string text = format_stats(*stats);
  EXPECT_NE(text.find("tests:         3"), std::string::npos) << text;
  EXPECT_NE(text.find("coverage rows: 6"), std::string::npos) << text;
}

}  // namespace
}  // namespace fastci::evidence
