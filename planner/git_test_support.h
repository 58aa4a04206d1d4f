#pragma once
/// For the planner's tests: commits everything in a scratch repository with the real git, as a CI
/// checkout would have it, and returns the new commit's id.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "planner/analyze.h"
#include "planner/git_repository.h"

namespace fastci::planner {

/// `git add -A && git commit -m message` in `repo` (initialised on first use); the commit's id.
inline std::string commit_all(const std::filesystem::path& repo, const std::string& message) {
  std::string git = "cd " + repo.string() +
                    " && export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t "
                    "GIT_COMMITTER_EMAIL=t@example.invalid && ";
  EXPECT_EQ(std::system((git + "(git init -q -b main 2>/dev/null || true) && git add -A && git commit -q -m '" +
                         message + "'").c_str()),
            0);
  auto opened = GitRepository::open(repo);
  return opened.ok() ? (*opened)->resolve("HEAD").value() : "";
}

/// `git ARGS` in `repo` with a fixed identity, output silenced; the test fails when git does.
inline void git_in(const std::filesystem::path& repo, const std::string& args) {
  ASSERT_EQ(std::system(("cd " + repo.string() +
                         " && export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t "
                         "GIT_COMMITTER_EMAIL=t@example.invalid && git " + args + " >/dev/null")
                            .c_str()),
            0);
}

/// The plan of tag `head` against tag "base" of a scratch repository (index cache in REPO/.fastci-test).
inline Plan plan_of_tag(const std::filesystem::path& repo, const std::string& head) {
  AnalyzeOptions o;
  o.repository = repo;
  o.base = "base";
  o.head = head;
  o.show_progress = false;
  o.state_dir = repo / ".fastci-test";
  auto plan = analyze(o);
  EXPECT_TRUE(plan.ok()) << plan.error().to_string();
  return plan.ok() ? std::move(*plan) : Plan{};
}

/// The ids of a plan's selected tests.
inline std::set<std::string> selected_test_ids(const Plan& plan) {
  std::set<std::string> out;
  for (const auto& s : plan.selection.selected) out.insert(s.test.id);
  return out;
}

}  // namespace fastci::planner
