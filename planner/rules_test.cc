#include <gtest/gtest.h>

#include "planner/rules.h"

namespace fastci::planner {
namespace {

TEST(Glob, StarStaysInFolderDoubleStarCrosses) {
  EXPECT_TRUE(glob_match("*.md", "README.md"));
  EXPECT_FALSE(glob_match("*.md", "docs/README.md"));
  EXPECT_TRUE(glob_match("**/*.md", "docs/a/README.md"));
  EXPECT_TRUE(glob_match("**/*.md", "README.md"));
  EXPECT_TRUE(glob_match("docs/**", "docs/a/b.png"));
  EXPECT_TRUE(glob_match("requirements*.txt", "requirements-dev.txt"));
  EXPECT_FALSE(glob_match("requirements*.txt", "ci/requirements.txt"));
  EXPECT_TRUE(glob_match("tests/unit_tests/**/test_?.py", "tests/unit_tests/a/b/test_x.py"));
  EXPECT_FALSE(glob_match("a?c", "a/c"));
}

TEST(Config, ReadsToolFastciFromPyproject) {
  auto config = parse_config(R"(
[project]
name = "x"
[tool.fastci]
extend_ignore = ["examples/**"]
always_run = ["tests/test_smoke.py::*"]
unknown_files = "ignore"
[[tool.fastci.rules]]
name = "kernels"
paths = ["csrc/**"]
tests = ["tests/ops/**"]
)", "pyproject.toml");
  ASSERT_TRUE(config.ok()) << config.error().to_string();
  EXPECT_TRUE(any_match(config->ignore, "examples/train.py"));
  EXPECT_TRUE(any_match(config->ignore, "docs/index.md"));  // defaults kept
  EXPECT_EQ(config->unknown, UnknownFilePolicy::ignore);
  ASSERT_EQ(config->rules.size(), 1u);
  EXPECT_EQ(config->rules[0].name, "kernels");
  EXPECT_EQ(config->source, "pyproject.toml");
  EXPECT_FALSE(config->quarantine);
}

TEST(Config, QuarantineIsABoolean) {
  auto on = parse_config("[tool.fastci]\nquarantine = true\n", "pyproject.toml");
  ASSERT_TRUE(on.ok()) << on.error().to_string();
  EXPECT_TRUE(on->quarantine);
  auto bad = parse_config("quarantine = \"yes\"\n", "fastci.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().line, 1);
  EXPECT_NE(bad.error().message.find("quarantine: expected true or false"), std::string::npos);
}

TEST(Config, PyprojectWithoutSectionGivesDefaults) {
  auto config = parse_config("[project]\nname = 'x'\n", "pyproject.toml");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->source, "defaults");
  EXPECT_EQ(config->unknown, UnknownFilePolicy::widen);
  // Lock files pin the dependencies every test runs with (Megatron-LM's uv.lock).
  for (const char* lock : {"uv.lock", "poetry.lock", "Pipfile.lock", "ci/constraints.txt"})
    EXPECT_TRUE(any_match(config->select_all, lock)) << lock;
}

TEST(Config, ErrorsNameFileLineAndExpectation) {
  auto bad_key = parse_config("ignore = ['a']\n\nfrobnicate = 1\n", "fastci.toml");
  ASSERT_FALSE(bad_key.ok());
  EXPECT_EQ(bad_key.error().line, 3);
  EXPECT_EQ(bad_key.error().file, "fastci.toml");
  EXPECT_NE(bad_key.error().message.find("unknown key 'frobnicate'"), std::string::npos);

  auto bad_type = parse_config("ignore = 'docs'\n", "fastci.toml");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_NE(bad_type.error().message.find("expected an array"), std::string::npos);

  auto bad_toml = parse_config("ignore = [\n", "fastci.toml");
  ASSERT_FALSE(bad_toml.ok());
  EXPECT_NE(bad_toml.error().message.find("invalid TOML"), std::string::npos);
}

}  // namespace
}  // namespace fastci::planner
