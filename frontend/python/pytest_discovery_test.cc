#include "frontend/python/pytest_discovery.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "frontend/python/link_modules.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

const std::string kSuite = "tests/fixtures/python/pytest_suite/";

class PytestSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto root = testing::source_root();
    facts_ = new RepositoryFacts(link_modules(testing::parse_folder(root, root / kSuite)));
  }
  static void TearDownTestSuite() { delete facts_; }
  static const frontend::Test* test(const std::string& id) {
    for (const auto& file : facts_->files)
      for (const auto& t : file.tests)
        if (t.id == kSuite + id) return &t;
    return nullptr;
  }
  static bool contains(const std::vector<std::string>& list, const std::string& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
  }
  static RepositoryFacts* facts_;
};
RepositoryFacts* PytestSuite::facts_ = nullptr;

TEST(PytestFiles, FollowsPythonFilesDefaults) {
  EXPECT_TRUE(is_test_file("tests/unit/test_x.py"));
  EXPECT_TRUE(is_test_file("a/b_test.py"));
  EXPECT_FALSE(is_test_file("a/testing.py"));
  EXPECT_FALSE(is_test_file("a/conftest.py"));
}

TEST_F(PytestSuite, ParametrizeIdsFollowPytestRules) {
  for (const char* id :
       {"test_params.py::test_literals[1]", "test_params.py::test_literals[-2]", "test_params.py::test_literals[1e-05]",
        "test_params.py::test_literals[1e+20]", "test_params.py::test_literals[3.0]",
        "test_params.py::test_literals[None]", "test_params.py::test_literals[by]",
        "test_params.py::test_literals[\\xe9\\n]", "test_params.py::test_param_ids[first]",
        "test_params.py::test_param_ids[3-4]", "test_params.py::test_ids_list[2]", "test_params.py::test_stacked[8-bf16]",
        "test_params.py::test_objects[size1]", "test_params.py::test_names[helper_function]",
        "test_params.py::test_names[kind3]", "test_params.py::test_duplicates[1_1]", "test_params.py::test_duplicates[]",
        "test_params.py::test_empty[NOTSET]", "test_params.py::testnounderscore",
        "test_classes.py::TestBasic::test_grid[q-1]", "test_classes.py::TestBasic::TestNested::test_inner",
        "test_classes.py::TestClassParam::test_m[c2]", "test_classes.py::TestMarkedChild::test_child[2]",
        "test_module_mark.py::TestUnderModuleMark::test_combined[1-m2]", "test_classes.py::DerivedCase::test_from_base",
        "test_classes.py::BaseCase::test_from_base", "test_classes.py::MyCase::testBeta",
        "test_classes.py::TestDefaultWorld::test_inherited_everywhere", "sub/helpers_test.py::test_local"})
    EXPECT_NE(test(id), nullptr) << id;
  EXPECT_EQ(test("test_classes.py::TestWithInit::test_never_collected"), nullptr);
  EXPECT_EQ(test("test_classes.py::TestDisabled::test_never"), nullptr);
  EXPECT_EQ(test("test_classes.py::MyCase::helper"), nullptr);
  EXPECT_EQ(test("test_params.py::not_a_test"), nullptr);
}

TEST_F(PytestSuite, FixturesResolveNearestFirstAndTransitively) {
  const std::string c = "py:tests.fixtures.python.pytest_suite.conftest.";
  const std::string s = "py:tests.fixtures.python.pytest_suite.sub.conftest.";
  const frontend::Test* t = test("sub/helpers_test.py::test_sub_shared");
  ASSERT_NE(t, nullptr);
  // sub/conftest.py's shared overrides the parent's and requests it; that one needs base_fixture.
  for (const auto& f : {s + "shared", c + "shared", c + "base_fixture", c + "auto_env", s + "sub_only"})
    EXPECT_TRUE(contains(t->fixtures, f)) << f;
  EXPECT_TRUE(testing::has_edge(*facts_, t->symbol, s + "shared", EdgeKind::fixture));
  EXPECT_TRUE(testing::has_edge(*facts_, s + "shared", c + "shared", EdgeKind::fixture));
  EXPECT_TRUE(testing::has_edge(*facts_, c + "shared", c + "base_fixture", EdgeKind::fixture));

  const frontend::Test* plain = test("test_params.py::test_plain");
  ASSERT_NE(plain, nullptr);
  EXPECT_TRUE(contains(plain->fixtures, c + "_renamed_impl"));  // @pytest.fixture(name="renamed")
  EXPECT_FALSE(contains(plain->fixtures, s + "shared"));

  const frontend::Test* used = test("test_classes.py::TestBasic::test_one");
  ASSERT_NE(used, nullptr);
  EXPECT_TRUE(contains(used->fixtures, c + "base_fixture"));  // usefixtures on the class

  const frontend::Test* local = test("sub/helpers_test.py::test_local");
  ASSERT_NE(local, nullptr);
  EXPECT_TRUE(contains(local->fixtures, "py:tests.fixtures.python.pytest_suite.sub.helpers_test.local_fixture"));

  const frontend::Test* in_class = test("test_classes.py::TestFixtures::test_uses_class_fixture");
  ASSERT_NE(in_class, nullptr);
  EXPECT_TRUE(contains(in_class->fixtures, "py:tests.fixtures.python.pytest_suite.test_classes.TestFixtures.class_fixture"));
}

TEST_F(PytestSuite, MarksGpusAndKnobs) {
  const frontend::Test* marked = test("sub/helpers_test.py::test_marks");
  ASSERT_NE(marked, nullptr);
  EXPECT_TRUE(contains(marked->marks, "skipif"));
  EXPECT_TRUE(contains(marked->marks, "timeout"));
  const frontend::Test* child = test("test_classes.py::TestMarkedChild::test_child[1]");
  ASSERT_NE(child, nullptr);
  EXPECT_TRUE(contains(child->marks, "slow"));  // inherited class mark

  const frontend::Test* gpu = test("test_classes.py::TestInheritsDistributed::test_gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->gpus, 4);  // world_size = [1, 4]
  const frontend::Test* inherited = test("test_classes.py::TestDefaultWorld::test_inherited_everywhere");
  ASSERT_NE(inherited, nullptr);
  EXPECT_EQ(inherited->gpus, 2);  // the base class's world_size = 2
  const frontend::Test* mark = test("test_classes.py::TestDefaultWorld::test_marked");
  ASSERT_NE(mark, nullptr);
  EXPECT_EQ(mark->gpus, 8);  // @pytest.mark.world_size(8)
  const frontend::Test* param = test("test_params.py::test_world_sizes[4]");
  ASSERT_NE(param, nullptr);
  EXPECT_EQ(param->gpus, 4);

  const frontend::Test* stacked = test("test_params.py::test_stacked[4-fp16]");
  ASSERT_NE(stacked, nullptr);
  ASSERT_EQ(stacked->knobs.size(), 2u);
  EXPECT_EQ(stacked->knobs[0].name, "n");
  EXPECT_EQ(stacked->knobs[0].value, "4");
  EXPECT_EQ(stacked->knobs[0].origin, KnobOrigin::parametrize);
  EXPECT_EQ(stacked->knobs[1].name, "dtype");
  EXPECT_EQ(stacked->knobs[1].value, "\"fp16\"");
}

TEST_F(PytestSuite, TestFunctionsAreTestSymbols) {
  int tests = 0;
  for (const auto& file : facts_->files)
    for (const auto& symbol : file.symbols)
      if (symbol.kind == SymbolKind::test) ++tests;
  EXPECT_GT(tests, 20);
  for (const auto& file : facts_->files)
    for (const auto& symbol : file.symbols)
      if (symbol.id == "py:tests.fixtures.python.pytest_suite.common.BaseCase.test_from_base") {
        EXPECT_EQ(symbol.kind, SymbolKind::test);
      }
}

/// The node ids must be exactly the ones pytest itself collects.
TEST_F(PytestSuite, NodeIdsEqualPytestCollectOnly) {
  std::string python = std::string(FASTCI_SOURCE_DIR) + "/build/venv/bin/python";
  if (const char* custom = std::getenv("FASTCI_PYTEST_PYTHON")) python = custom;
  if (!std::filesystem::exists(python))
    GTEST_SKIP() << "no Python with pytest at " << python << " (set FASTCI_PYTEST_PYTHON or create build/venv)";
  std::string command = "cd '" + std::string(FASTCI_SOURCE_DIR) + "/tests/fixtures/python' && '" + python +
                        "' -m pytest --collect-only -q -p no:cacheprovider --rootdir='" + FASTCI_SOURCE_DIR +
                        "' -c /dev/null pytest_suite 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::set<std::string> expected;
  std::string output;
  char line[4096];
  while (fgets(line, sizeof line, pipe)) {
    std::string l(line);
    output += l;
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    if (l.rfind(kSuite, 0) == 0 && l.find("::") != std::string::npos) expected.insert(l);
  }
  int status = pclose(pipe);
  ASSERT_EQ(status, 0) << output;
  std::set<std::string> produced;
  for (const auto& t : python::testing::all_tests(*facts_)) produced.insert(t.id);
  EXPECT_GT(expected.size(), 60u);
  for (const auto& id : expected) EXPECT_TRUE(produced.count(id)) << "pytest collects, fastci misses: " << id;
  for (const auto& id : produced) EXPECT_TRUE(expected.count(id)) << "fastci lists, pytest does not: " << id;
}

}  // namespace
}  // namespace fastci::frontend::python
