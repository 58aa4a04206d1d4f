#include "planner/failure_class.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "planner/git_test_support.h"

namespace fastci::planner {
namespace {

namespace fs = std::filesystem;

/// "Did the commits between change code the test reaches": only the pairs listed did.
ReachedCodeChanged changed_only(std::set<std::pair<std::string, std::string>> pairs) {
  return [pairs](const std::string& from, const std::string& to) { return pairs.count({from, to}) > 0; };
}

TEST(FailureClass, FailingInTheBaseRunIsKnownFailing) {
  auto c = classify_failures({{"c1", true}, {"c2", true}}, "c2", changed_only({{"c1", "c2"}}));
  EXPECT_EQ(c.kind, FailureClass::known_failing);
  EXPECT_EQ(c.evidence, "failed in the run of the base c2");
}

TEST(FailureClass, PassingAtTheBaseLeavesANewFailureToTheChange) {
  // It failed long ago and was fixed by a code change; at the base it passes.
  auto c = classify_failures({{"c1", true}, {"c2", false}}, "c2", changed_only({{"c1", "c2"}}));
  EXPECT_EQ(c.kind, FailureClass::none);
  EXPECT_TRUE(c.evidence.empty());
}

TEST(FailureClass, FlipsAtEqualCodeOrAtOneCommitAreFlaky) {
  auto same_commit = classify_failures({{"c1", false}, {"c1", true}}, "c1", changed_only({}));
  EXPECT_EQ(same_commit.kind, FailureClass::flaky);
  EXPECT_EQ(same_commit.evidence, "failed and passed at c1");
  auto equal_code = classify_failures({{"c1", false}, {"c2", true}, {"c3", false}}, "c3", changed_only({{"c2", "c3"}}));
  EXPECT_EQ(equal_code.kind, FailureClass::flaky);
  EXPECT_EQ(equal_code.evidence, "failed at c2 after it passed at c1, with no change to code it reaches in between");
  // The same flips, each across a change to its code, are that code's doing.
  auto code = classify_failures({{"c1", false}, {"c2", true}, {"c3", false}}, "c3",
                                changed_only({{"c1", "c2"}, {"c2", "c3"}}));
  EXPECT_EQ(code.kind, FailureClass::none);
}

TEST(FailureClass, WithoutABaseRunTheLatestRunDecidesWhenNothingReachedChangedSince) {
  auto c = classify_failures({{"c1", false}, {"c2", true}}, "c5", changed_only({{"c1", "c2"}}));
  EXPECT_EQ(c.kind, FailureClass::known_failing);
  EXPECT_EQ(c.evidence, "failed at c2, and c2..c5 changed no code it reaches");
  auto reached = classify_failures({{"c1", false}, {"c2", true}}, "c5", changed_only({{"c1", "c2"}, {"c2", "c5"}}));
  EXPECT_EQ(reached.kind, FailureClass::none);  // c2..c5 may have fixed it, or broken it anew
  auto passed = classify_failures({{"c1", true}, {"c2", false}}, "c5", changed_only({{"c1", "c2"}}));
  EXPECT_EQ(passed.kind, FailureClass::none);
}

/// A three-commit repository and a store of runs with coverage: what a CI history looks like.
class FailureClassFromStore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fastci_failure_class_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "repo/pkg");
    write("pkg/a.py", "def f():\n    return 1\n");
    write("pkg/b.py", "def g():\n    return 2\n");
    commits_.push_back(commit("c0"));
    write("pkg/b.py", "def g():\n    return 3\n");
    commits_.push_back(commit("c1: b only"));
    write("pkg/a.py", "def f():\n    return 4\n");
    commits_.push_back(commit("c2: a"));
    fs::create_directories(dir_ / "repo/docs");
    write("docs/notes.md", "notes\n");
    commits_.push_back(commit("c3: docs"));
    fs::create_directories(dir_ / "repo/csrc");
    write("csrc/op.cpp", "int op() { return 1; }\n");
    commits_.push_back(commit("c4: native"));
    auto store = evidence::Store::open("sqlite://" + (dir_ / "evidence.db").string());
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    store_ = std::move(*store);
    auto repo = GitRepository::open(dir_ / "repo");
    ASSERT_TRUE(repo.ok()) << repo.error().to_string();
    repo_ = std::move(*repo);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& path, const std::string& text) { std::ofstream(dir_ / "repo" / path) << text; }

  std::string commit(const std::string& message) { return commit_all(dir_ / "repo", message); }

  /// One CI run at `commit`: each test with its outcome, covering pkg/a.py.
  void run(const std::string& commit, const std::vector<std::pair<std::string, evidence::Outcome>>& tests) {
    auto result = store_->ingest(
        [&](evidence::EvidenceSink& sink) {
          sink.begin_run(evidence::Run{commit, "2026-12-01T10:00:00Z", "ci", "{}", "test", ""});
          for (const auto& [id, outcome] : tests) {
            evidence::TestEvidence t;
            t.test_id = id;
            t.outcome = outcome;
            t.duration_seconds = 1;
            t.coverage.push_back({"pkg/a.py", {{1, 2}}, {}});
            sink.add_test(std::move(t));
          }
          return util::Status{};
        },
        "test", "runs");
    ASSERT_TRUE(result.ok()) << result.error().to_string();
  }

  fs::path dir_;
  std::vector<std::string> commits_;
  std::unique_ptr<evidence::Store> store_;
  std::unique_ptr<GitRepository> repo_;
};

TEST_F(FailureClassFromStore, ClassifiesFromRunsCoverageAndGit) {
  using evidence::Outcome;
  // c0 -> c1 changes only pkg/b.py, which none of the tests covers; c1 -> c2 changes pkg/a.py;
  // c2 -> c3 documentation, c3 -> c4 a C++ source.
  run(commits_[0], {{"t::flaky", Outcome::passed}, {"t::env", Outcome::failed}, {"t::regressed", Outcome::passed}});
  run(commits_[1], {{"t::flaky", Outcome::failed}, {"t::env", Outcome::failed}, {"t::regressed", Outcome::passed}});
  run(commits_[2], {{"t::flaky", Outcome::passed}, {"t::env", Outcome::failed}, {"t::regressed", Outcome::failed}});
  auto at_head = classify_from_store(*store_, *repo_, commits_[2], {"t::flaky", "t::env", "t::regressed", "t::none"});
  ASSERT_TRUE(at_head.ok()) << at_head.error().to_string();
  ASSERT_EQ(at_head->count("t::flaky"), 1u);
  EXPECT_EQ(at_head->at("t::flaky").kind, FailureClass::flaky);
  EXPECT_NE(at_head->at("t::flaky").evidence.find("no change to code it reaches"), std::string::npos);
  EXPECT_EQ(at_head->at("t::env").kind, FailureClass::known_failing);
  // It failed first at c2, which changed the code it runs, and c2 is the base of the next change:
  // a failure from here on is known, but it was c2's own failure, not a flaky one.
  EXPECT_EQ(at_head->at("t::regressed").kind, FailureClass::known_failing);
  // At c1 as the base, the regression had not happened yet.
  auto at_c1 = classify_from_store(*store_, *repo_, commits_[1], {"t::regressed"});
  ASSERT_TRUE(at_c1.ok());
  EXPECT_EQ(at_c1->count("t::regressed"), 0u);
}

TEST_F(FailureClassFromStore, DocumentationReachesNoTestAndNativeCodeEveryTest) {
  using evidence::Outcome;
  run(commits_[2], {{"t::env", Outcome::failed}});
  // No run at c3: the run at c2 decides, for c2..c3 changed documentation only.
  auto after_docs = classify_from_store(*store_, *repo_, commits_[3], {"t::env"});
  ASSERT_TRUE(after_docs.ok()) << after_docs.error().to_string();
  ASSERT_EQ(after_docs->count("t::env"), 1u);
  EXPECT_EQ(after_docs->at("t::env").kind, FailureClass::known_failing);
  // c3..c4 changed C++, which Python coverage cannot rule out: the failure at c2 says nothing at c4.
  auto after_native = classify_from_store(*store_, *repo_, commits_[4], {"t::env"});
  ASSERT_TRUE(after_native.ok());
  EXPECT_EQ(after_native->count("t::env"), 0u);
}

TEST_F(FailureClassFromStore, ARunAtACommitTheRepositoryLacksCountsAsACodeChange) {
  using evidence::Outcome;
  run("0000000000000000000000000000000000000001", {{"t::x", Outcome::passed}});
  run(commits_[1], {{"t::x", Outcome::failed}});
  auto classes = classify_from_store(*store_, *repo_, commits_[2], {"t::x"});
  ASSERT_TRUE(classes.ok()) << classes.error().to_string();
  EXPECT_EQ(classes->count("t::x"), 0u);  // not flaky: the code before the failure is unknown
}

}  // namespace
}  // namespace fastci::planner
