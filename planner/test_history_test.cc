#include "planner/test_history.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fastci::planner {
namespace {

namespace fs = std::filesystem;

/// c0 adds pkg/a.py and pkg/b.py; c1 changes a.py, c2 b.py, c3 a.py again. The test fails at c1 and
/// at c3, each time right after a change to a.py.
class CoFailure : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fastci_cofailure_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "pkg");
    ASSERT_EQ(std::system(("cd " + dir_.string() + " && git init -q -b main").c_str()), 0);
    write("pkg/a.py", "A = 1\n");
    write("pkg/b.py", "B = 1\n");
    commits_.push_back(commit("c0"));
    write("pkg/a.py", "A = 2\n");
    commits_.push_back(commit("c1"));
    write("pkg/b.py", "B = 2\n");
    commits_.push_back(commit("c2"));
    write("pkg/a.py", "A = 3\n");
    commits_.push_back(commit("c3"));
    auto repo = GitRepository::open(dir_);
    ASSERT_TRUE(repo.ok()) << repo.error().to_string();
    repo_ = std::move(*repo);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& path, const std::string& text) { std::ofstream(dir_ / path) << text; }

  std::string commit(const std::string& message) {
    std::string git = "cd " + dir_.string() +
                      " && export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t "
                      "GIT_COMMITTER_EMAIL=t@example.invalid && git add -A && git commit -q -m " + message;
    EXPECT_EQ(std::system(git.c_str()), 0);
    auto repo = GitRepository::open(dir_);
    return repo.ok() ? (*repo)->resolve("HEAD").value() : "";
  }

  std::vector<OutcomeAt> runs() const {
    return {{commits_[0], false}, {commits_[1], true}, {commits_[2], false}, {commits_[3], true}};
  }

  RiskFeatures features_for(const std::set<std::string>& changed_files) {
    ReachedCode reached(*repo_, nullptr);
    auto points = history_points("t::x", runs(), changed_files, reached);
    EXPECT_TRUE(points.ok()) << points.error().to_string();
    RiskFeatures f;
    if (points.ok()) history_features(*points, f);
    return f;
  }

  fs::path dir_;
  std::vector<std::string> commits_;
  std::unique_ptr<GitRepository> repo_;
};

TEST_F(CoFailure, FailuresFollowTheFileTheirCommitsChanged) {
  ReachedCode reached(*repo_, nullptr);
  auto points = history_points("t::x", runs(), {"pkg/a.py"}, reached);
  ASSERT_TRUE(points.ok()) << points.error().to_string();
  ASSERT_EQ(points->size(), 4u);
  EXPECT_FALSE((*points)[0].touched_changed_files);  // the first run has no commits before it
  EXPECT_TRUE((*points)[1].touched_changed_files);   // c0..c1 changed a.py
  EXPECT_FALSE((*points)[2].touched_changed_files);  // c1..c2 changed b.py only
  EXPECT_TRUE((*points)[3].touched_changed_files);

  auto on_a = features_for({"pkg/a.py"});
  auto on_b = features_for({"pkg/b.py"});
  auto elsewhere = features_for({"pkg/c.py"});
  EXPECT_DOUBLE_EQ(on_a.cofailure, 1.0);  // both failures came with a change to a.py
  EXPECT_DOUBLE_EQ(on_b.cofailure, 0.0);  // b.py changed only where it passed
  EXPECT_DOUBLE_EQ(elsewhere.cofailure, 0.0);
  EXPECT_GT(on_a.failure_rate, 0.0);
  EXPECT_DOUBLE_EQ(on_a.failure_rate, on_b.failure_rate);  // the rate does not depend on the change
  auto weights = RiskWeights::defaults();
  EXPECT_GT(risk_score(on_a, weights), risk_score(on_b, weights));
}

}  // namespace
}  // namespace fastci::planner
