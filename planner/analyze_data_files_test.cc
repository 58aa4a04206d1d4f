// End-to-end: a changed file that is not code selects the tests of the code naming it, not every test.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "planner/analyze.h"
#include "planner/git_test_support.h"

namespace fastci::planner {
namespace {

namespace fs = std::filesystem;

/// A small repository laid out like torchtune's tests: assets read through a helper naming their
/// folder, a test naming an asset, a test listing a folder of configurations, a file nothing names.
class DataFilesRepo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    repo_ = new fs::path(fs::temp_directory_path() / ("fastci_data_files_" + std::to_string(::getpid())));
    fs::remove_all(*repo_);
    write("pkg/__init__.py", "");
    write("pkg/tok.py", "def load(path):\n    return open(path).read()\n");
    write("tests/test_utils.py",
          "from pathlib import Path\n\n\ndef get_assets_path():\n    return Path(__file__).parent / \"assets\"\n");
    write("tests/test_tok.py",
          "from pkg.tok import load\nfrom tests.test_utils import get_assets_path\n\nASSETS = get_assets_path()\n"
          "VOCAB = ASSETS / \"vocab.json\"\n\n\ndef test_vocab():\n    assert load(VOCAB)\n\n\n"
          "def test_merges():\n    assert load(ASSETS / \"merges.txt\")\n");
    write("tests/test_other.py", "from pkg.tok import load\n\n\ndef test_plain():\n    assert load\n");
    write("tests/test_configs.py",
          "import os\nfrom pathlib import Path\n\nCONFIG_DIR = Path(__file__).parent.parent / \"recipes\" / \"configs\"\n\n\n"
          "def test_all_configs():\n    for f in os.listdir(CONFIG_DIR):\n        assert f.endswith(\".yaml\")\n");
    write("tests/assets/vocab.json", "{\"a\": 1}\n");
    write("tests/assets/merges.txt", "a b\n");
    write("recipes/configs/small.yaml", "steps: 1\n");
    write("tools/weights.bin", "0\n");
    git("init -q -b main && git add -A && git commit -q -m base && git tag base");
    commit("vocab", [] { write("tests/assets/vocab.json", "{\"a\": 2}\n"); });
    commit("new-asset", [] {
      write("tests/assets/gemma.json", "{}\n");
      write("tests/test_gemma.py",
            "from pkg.tok import load\nfrom tests.test_utils import get_assets_path\n\n\n"
            "def test_gemma():\n    assert load(get_assets_path() / \"gemma.json\")\n");
    });
    commit("config", [] { write("recipes/configs/small.yaml", "steps: 2\n"); });
    commit("unnamed", [] { write("tools/weights.bin", "1\n"); });
  }
  static void TearDownTestSuite() {
    fs::remove_all(*repo_);
    delete repo_;
  }

  static void write(const std::string& path, const std::string& text) {
    fs::create_directories((*repo_ / path).parent_path());
    std::ofstream(*repo_ / path) << text;
  }
  static void git(const std::string& args) { git_in(*repo_, args); }
  template <typename Edit>
  static void commit(const std::string& tag, Edit edit) {
    git("checkout -q base");
    edit();
    git("add -A && git commit -q -m " + tag + " && git tag " + tag);
  }

  static Plan plan_for(const std::string& tag) { return plan_of_tag(*repo_, tag); }
  static std::set<std::string> selected(const Plan& plan) { return selected_test_ids(plan); }

  static bool everything(const Plan& plan) {
    for (const auto& w : plan.changes.widenings)
      if (w.scope == Widening::Scope::everything) return true;
    return false;
  }

  static const ChangedFile* file(const Plan& plan, const std::string& path) {
    for (const auto& f : plan.changes.files)
      if (f.path == path) return &f;
    return nullptr;
  }

  static fs::path* repo_;
};
fs::path* DataFilesRepo::repo_ = nullptr;

TEST_F(DataFilesRepo, ChangedAssetSelectsTheTestsOfTheCodeNamingItOrItsFolder) {
  auto plan = plan_for("vocab");
  EXPECT_FALSE(everything(plan));
  EXPECT_EQ(selected(plan), (std::set<std::string>{"tests/test_tok.py::test_vocab", "tests/test_tok.py::test_merges"}));
  const ChangedFile* vocab = file(plan, "tests/assets/vocab.json");
  ASSERT_NE(vocab, nullptr);
  EXPECT_EQ(vocab->kind, FileKind::data);
  // Each reader is said with its file and line.
  std::set<std::string> reasons;
  for (const auto& w : plan.changes.widenings) {
    EXPECT_EQ(w.file, "tests/assets/vocab.json");
    reasons.insert(w.reason.substr(0, w.reason.find(' ')));
  }
  EXPECT_EQ(reasons, (std::set<std::string>{"tests/test_tok.py:5", "tests/test_utils.py:5"}));
  // And each test's reason names the data file.
  for (const auto& t : plan.selection.selected) {
    ASSERT_FALSE(t.reasons.empty());
    EXPECT_NE(t.reasons[0].text.find("changed data file tests/assets/vocab.json through its reader"), std::string::npos)
        << t.test.id << ": " << t.reasons[0].text;
  }
}

TEST_F(DataFilesRepo, AddedAssetSelectsOnlyTheCodeNamingIt) {
  auto plan = plan_for("new-asset");
  EXPECT_EQ(selected(plan), std::set<std::string>{"tests/test_gemma.py::test_gemma"});
  EXPECT_EQ(file(plan, "tests/assets/gemma.json")->kind, FileKind::data);
}

TEST_F(DataFilesRepo, ConfigurationInAListedFolderSelectsTheListingTest) {
  auto plan = plan_for("config");
  EXPECT_EQ(selected(plan), std::set<std::string>{"tests/test_configs.py::test_all_configs"});
}

TEST_F(DataFilesRepo, FileNoCodeNamesStillRunsEverythingAndSaysWhy) {
  auto plan = plan_for("unnamed");
  EXPECT_TRUE(everything(plan));
  EXPECT_EQ(selected(plan).size(), 4u);
  ASSERT_EQ(plan.changes.widenings.size(), 1u);
  EXPECT_NE(plan.changes.widenings[0].reason.find("no code names it or lists a folder holding it"), std::string::npos);
}

}  // namespace
}  // namespace fastci::planner
