#pragma once
/// For the planner's tests: commits everything in a scratch repository with the real git, as a CI
/// checkout would have it, and returns the new commit's id.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

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

}  // namespace fastci::planner
