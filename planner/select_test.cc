#include <gtest/gtest.h>

#include "planner/select.h"

namespace fastci::planner {
namespace {

using frontend::EdgeKind;
using frontend::SymbolKind;

frontend::Symbol sym(const std::string& name, const std::string& file, SymbolKind kind = SymbolKind::function) {
  return {"py:" + name, frontend::Language::python, kind, name, file, 1, 2, 0};
}

frontend::Test test(const std::string& id, const std::string& symbol, const std::string& file) {
  return {id, "py:" + symbol, file, 1, {}, {}, 0, {}};
}

struct Fixture {
  frontend::RepositoryFacts facts;
  std::vector<frontend::Test> tests;
  Fixture() {
    frontend::FileFacts lib;
    lib.path = "pkg/a.py";
    lib.symbols = {sym("pkg.a.f", "pkg/a.py"), sym("pkg.a.g", "pkg/a.py")};
    frontend::FileFacts t;
    t.path = "tests/sub/test_a.py";
    t.symbols = {sym("tests.sub.test_a.test_f", "tests/sub/test_a.py", SymbolKind::test),
                 sym("tests.sub.test_a.test_g", "tests/sub/test_a.py", SymbolKind::test)};
    t.edges = {{"py:tests.sub.test_a.test_f", "py:pkg.a.f", EdgeKind::call, "tests/sub/test_a.py", 3},
               {"py:tests.sub.test_a.test_g", "py:pkg.a.g", EdgeKind::call, "tests/sub/test_a.py", 6}};
    t.tests = {test("tests/sub/test_a.py::test_f", "tests.sub.test_a.test_f", "tests/sub/test_a.py"),
               test("tests/sub/test_a.py::test_g", "tests.sub.test_a.test_g", "tests/sub/test_a.py")};
    frontend::FileFacts other;
    other.path = "tests/test_b.py";
    other.symbols = {sym("tests.test_b.test_smoke", "tests/test_b.py", SymbolKind::test)};
    other.tests = {test("tests/test_b.py::test_smoke", "tests.test_b.test_smoke", "tests/test_b.py")};
    facts.files = {lib, t, other};
    for (const auto& f : facts.files) tests.insert(tests.end(), f.tests.begin(), f.tests.end());
  }
};

Selection select(const Fixture& fx, const ChangeSet& changes, const Config& config) {
  auto graph = callgraph::CallGraph::build(fx.facts);
  return select_tests({&changes, &graph, nullptr, &fx.tests, &config});
}

std::vector<std::string> ids(const Selection& s) {
  std::vector<std::string> out;
  for (const auto& t : s.selected) out.push_back(t.test.id);
  return out;
}

/// pkg.a.f's body changed.
ChangeSet change_of_f() {
  ChangeSet c;
  c.symbols.push_back({"py:pkg.a.f", SymbolChange::changed, SymbolKind::function, frontend::Language::python,
                       "pkg.a.f", "pkg/a.py", 1, 2, {}});
  c.files.push_back({"pkg/a.py", {}, FileStatus::modified, FileKind::python, 1, 1, {"py:pkg.a.f"}, {}});
  return c;
}

TEST(Select, ChangedSymbolSelectsOnlyTestsThatReachIt) {
  Fixture fx;
  ChangeSet c = change_of_f();
  auto s = select(fx, c, default_config());
  EXPECT_EQ(ids(s), std::vector<std::string>{"tests/sub/test_a.py::test_f"});
  ASSERT_EQ(s.selected[0].reasons.size(), 1u);
  EXPECT_EQ(s.selected[0].reasons[0].kind, SelectionReason::Kind::static_path);
  EXPECT_EQ(s.selected[0].reasons[0].witness.back().symbol_id, "py:pkg.a.f");
  EXPECT_EQ(s.skipped.size(), 2u);
}

TEST(Select, AChangeReachedOnlyThroughAnUnresolvedCallIsANameMatch) {
  // pkg.a.Work.wait has no resolved caller; pkg.a.g's `handle.wait()` could not be typed. The tests
  // reaching g may reach wait, and say so, instead of being skipped.
  Fixture fx;
  fx.facts.files[0].symbols.push_back(sym("pkg.a.Work.wait", "pkg/a.py", SymbolKind::method));
  fx.facts.files[0].edges = {{"py:pkg.a.g", "?.wait", EdgeKind::name_match, "pkg/a.py", 2},
                             {"?.wait", "py:pkg.a.Work.wait", EdgeKind::name_match, "pkg/a.py", 0}};
  fx.facts.files[2].edges = {{"py:tests.test_b.test_smoke", "py:pkg.a.g", EdgeKind::call, "tests/test_b.py", 4}};
  ChangeSet c;
  c.symbols.push_back({"py:pkg.a.Work.wait", SymbolChange::changed, SymbolKind::method, frontend::Language::python,
                       "pkg.a.Work.wait", "pkg/a.py", 1, 2, {}});
  c.files.push_back({"pkg/a.py", {}, FileStatus::modified, FileKind::python, 1, 1, {"py:pkg.a.Work.wait"}, {}});
  auto s = select(fx, c, default_config());
  EXPECT_EQ(ids(s), (std::vector<std::string>{"tests/sub/test_a.py::test_g", "tests/test_b.py::test_smoke"}));
  for (const auto& t : s.selected) {
    const auto& guessed = t.reasons.at(0);
    EXPECT_EQ(guessed.kind, SelectionReason::Kind::name_match);
    EXPECT_NE(guessed.text.find("`.wait` in pkg.a.g"), std::string::npos) << guessed.text;
  }
  EXPECT_STREQ(to_string(SelectionReason::Kind::name_match), "name-match");
  EXPECT_TRUE(is_graph_path(SelectionReason::Kind::name_match));
}

TEST(Select, ANameMatchIntoAClassATestDefinesSelectsThatTestOnly) {
  // test_f defines Fake, whose wait changed; both tests call g, whose `handle.wait()` could not be
  // typed. Only test_f can hold a Fake: test_g is skipped, and says why.
  Fixture fx;
  fx.facts.files[0].edges = {{"py:pkg.a.g", "?.wait", EdgeKind::name_match, "pkg/a.py", 2}};
  auto& t = fx.facts.files[1];
  t.symbols.push_back(sym("tests.sub.test_a.test_f.Fake", "tests/sub/test_a.py", SymbolKind::class_));
  t.symbols.push_back(sym("tests.sub.test_a.test_f.Fake.wait", "tests/sub/test_a.py", SymbolKind::method));
  t.edges = {{"py:tests.sub.test_a.test_f", "py:pkg.a.g", EdgeKind::call, "tests/sub/test_a.py", 3},
             {"py:tests.sub.test_a.test_g", "py:pkg.a.g", EdgeKind::call, "tests/sub/test_a.py", 6},
             {"?.wait", "py:tests.sub.test_a.test_f.Fake.wait", EdgeKind::name_match, "tests/sub/test_a.py", 0}};
  ChangeSet c;
  c.symbols.push_back({"py:tests.sub.test_a.test_f.Fake.wait", SymbolChange::changed, SymbolKind::method,
                       frontend::Language::python, "tests.sub.test_a.test_f.Fake.wait", "tests/sub/test_a.py", 1, 2, {}});
  auto s = select(fx, c, default_config());
  EXPECT_EQ(ids(s), (std::vector<std::string>{"tests/sub/test_a.py::test_f"}));
  ASSERT_EQ(skipped_for_dead_name_matches(s), 1u);
  for (const auto& skipped : s.skipped)
    if (skipped.test.id == "tests/sub/test_a.py::test_g") {
      EXPECT_EQ(skipped.reason.rfind(kOnlyDeadNameMatches, 0), 0u);
      EXPECT_NE(skipped.reason.find("an instance of tests.sub.test_a.test_f.Fake, a class defined in "
                                    "tests.sub.test_a.test_f, which no path of this test runs"),
                std::string::npos)
          << skipped.reason;
    }
}

TEST(Select, OwnFileAlwaysRunAndFolderWidening) {
  Fixture fx;
  ChangeSet c;
  c.files.push_back({"tests/test_b.py", {}, FileStatus::modified, FileKind::python, 1, 0, {}, {}});
  Config config = default_config();
  config.always_run = {"tests/sub/test_a.py::test_g"};
  auto s = select(fx, c, config);
  EXPECT_EQ(ids(s), (std::vector<std::string>{"tests/sub/test_a.py::test_g", "tests/test_b.py::test_smoke"}));
  EXPECT_EQ(s.selected[0].reasons[0].kind, SelectionReason::Kind::always_run);
  EXPECT_EQ(s.selected[1].reasons[0].kind, SelectionReason::Kind::own_file);

  ChangeSet conftest;
  conftest.widenings.push_back({Widening::Scope::folder, "tests/sub/conftest.py", "conftest.py changed", "tests/sub"});
  EXPECT_EQ(ids(select(fx, conftest, default_config())),
            (std::vector<std::string>{"tests/sub/test_a.py::test_f", "tests/sub/test_a.py::test_g"}));
}

TEST(Select, EverythingWideningAndRules) {
  Fixture fx;
  ChangeSet all;
  all.widenings.push_back({Widening::Scope::everything, "setup.py", "build changed", {}});
  EXPECT_EQ(select(fx, all, default_config()).selected.size(), 3u);

  Config config = default_config();
  config.rules.push_back({"smoke", {"configs/**"}, {"tests/test_b.py::*"}});
  ChangeSet rule;
  rule.widenings.push_back({Widening::Scope::rule, "configs/x.yaml", "rule 'smoke'", "smoke"});
  auto s = select(fx, rule, config);
  EXPECT_EQ(ids(s), std::vector<std::string>{"tests/test_b.py::test_smoke"});
  EXPECT_EQ(s.selected[0].reasons[0].kind, SelectionReason::Kind::rule);
}

TEST(Select, SkippedImportersOfCodeOnAPathAreNamed) {
  Fixture fx;
  // tests/test_b.py imports pkg.a (whose f changed) but calls nothing in it.
  fx.facts.files[0].symbols.push_back(sym("pkg.a", "pkg/a.py", SymbolKind::module));
  fx.facts.files[2].symbols.push_back(sym("tests.test_b", "tests/test_b.py", SymbolKind::module));
  fx.facts.files[2].edges.push_back({"py:tests.test_b", "py:pkg.a", EdgeKind::import, "tests/test_b.py", 1});
  ChangeSet c = change_of_f();
  auto s = select(fx, c, default_config());
  EXPECT_EQ(ids(s), std::vector<std::string>{"tests/sub/test_a.py::test_f"});
  EXPECT_EQ(skipped_importing_changes(s), 1u);
  for (const auto& t : s.skipped) {
    bool importer = t.test.id == "tests/test_b.py::test_smoke";
    EXPECT_EQ(t.reason.starts_with(kImportsWithoutPath), importer) << t.test.id << ": " << t.reason;
    if (importer) {
      EXPECT_NE(t.reason.find("pkg.a"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace fastci::planner
