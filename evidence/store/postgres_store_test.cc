// The shared store on a real PostgreSQL server: the same answers and guarantees as the SQLite store.
// scripts/test.sh starts a throwaway server and sets FASTCI_TEST_POSTGRES_URL; without it these skip.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "evidence/store/sql_connection.h"
#include "evidence/store/store.h"
#include "evidence/store/store_test_support.h"

namespace fastci::evidence {
namespace {

#ifdef FASTCI_WITH_POSTGRESQL

/// `url` with its database name replaced by `database`.
std::string with_database(const std::string& url, const std::string& database) {
  std::size_t query = url.find('?');
  std::size_t slash = url.rfind('/', query == std::string::npos ? std::string::npos : query);
  std::size_t authority = url.find("://");
  if (slash == std::string::npos || slash < authority + 3) return url;
  return url.substr(0, slash + 1) + database + (query == std::string::npos ? "" : url.substr(query));
}

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* server = std::getenv("FASTCI_TEST_POSTGRES_URL");
    if (server == nullptr || *server == '\0') GTEST_SKIP() << "FASTCI_TEST_POSTGRES_URL is not set";
    server_ = server;
    database_ = "fastci_test_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : database_) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto admin = open_postgresql(server_);
    ASSERT_TRUE(admin.ok()) << admin.error().to_string();
    ASSERT_TRUE((*admin)->execute_script("DROP DATABASE IF EXISTS " + database_).ok());
    auto created = (*admin)->execute_script("CREATE DATABASE " + database_);
    ASSERT_TRUE(created.ok()) << created.error().to_string();
    url_ = with_database(server_, database_);
  }
  void TearDown() override {
    if (server_.empty()) return;
    auto admin = open_postgresql(server_);
    if (admin.ok()) (void)(*admin)->execute_script("DROP DATABASE IF EXISTS " + database_ + " WITH (FORCE)");
  }
  std::unique_ptr<Store> open() {
    auto store = Store::open(url_);
    EXPECT_TRUE(store.ok()) << (store.ok() ? "" : store.error().to_string());
    return store.ok() ? std::move(*store) : nullptr;
  }

  std::string server_, database_, url_;
};

TEST_F(PostgresStoreTest, IngestsAndAnswersQueries) {
  auto store = open();
  ASSERT_TRUE(store);
  auto ingested = store->ingest(synthetic_producer(0, 5, 4, "c0ffee"), "synthetic", "mem");
  ASSERT_TRUE(ingested.ok()) << ingested.error().to_string();
  EXPECT_EQ(ingested->tests, 5u);
  expect_synthetic_queries(*store, 5, 4);
}

TEST_F(PostgresStoreTest, GcKeepsTheNewestRuns) {
  auto store = open();
  ASSERT_TRUE(store);
  expect_gc_keeps_the_newest_runs(*store);
}

TEST_F(PostgresStoreTest, FailedIngestLeavesStoreUnchanged) {
  auto store = open();
  ASSERT_TRUE(store);
  expect_failed_ingest_leaves_store_unchanged(*store);
}

TEST_F(PostgresStoreTest, ConcurrentWritersLoseNothing) {
  ASSERT_TRUE(open());
  expect_concurrent_ingests_lose_nothing(url_, /*processes=*/8, /*tests_per_process=*/40, /*files=*/12);
}

TEST_F(PostgresStoreTest, ConcurrentFirstOpenMigratesOnce) {
  expect_concurrent_ingests_lose_nothing(url_, /*processes=*/6, /*tests_per_process=*/5, /*files=*/3);
  auto stats = open()->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->schema_version, 1);
}

TEST_F(PostgresStoreTest, ErrorsNeverShowThePassword) {
  std::string url = with_database(server_, "no_such_database_here");
  std::string secret = "postgresql://postgres:s3cret-value@" + url.substr(url.find('@') + 1);
  auto store = Store::open(secret);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().to_string().find("s3cret-value"), std::string::npos) << store.error().to_string();
}

#else

TEST(PostgresStoreTest, NotBuilt) { GTEST_SKIP() << "built without FASTCI_WITH_POSTGRESQL"; }

#endif

}  // namespace
}  // namespace fastci::evidence
