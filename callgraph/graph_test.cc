#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "callgraph/dot.h"
#include "callgraph/graph.h"
#include "callgraph/impact.h"
#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"

namespace fastci::callgraph {
namespace {

using frontend::EdgeKind;
using frontend::SymbolKind;

frontend::Symbol symbol(const std::string& id, SymbolKind kind = SymbolKind::function) {
  frontend::Symbol s;
  s.id = "py:" + id;
  s.kind = kind;
  s.qualified_name = id;
  s.file = "pkg/" + id.substr(0, id.find('.')) + ".py";
  s.first_line = 1;
  return s;
}

frontend::Edge edge(const std::string& from, const std::string& to, EdgeKind kind = EdgeKind::call) {
  return {"py:" + from, to.starts_with("?") ? to : "py:" + to, kind, "pkg/x.py", 3};
}

/// mod.helper <- mod.api <- tests.test_api (two parametrized ids); tests.test_other calls torch only.
frontend::RepositoryFacts sample() {
  frontend::FileFacts lib;
  lib.path = "pkg/mod.py";
  lib.symbols = {symbol("mod", SymbolKind::module), symbol("mod.helper"), symbol("mod.api"),
                 symbol("mod.unused")};
  lib.edges = {edge("mod.api", "mod.helper"), edge("mod", "mod.helper", EdgeKind::contains),
               edge("mod", "mod.api", EdgeKind::contains), edge("mod", "mod.unused", EdgeKind::contains)};
  frontend::FileFacts tests;
  tests.path = "tests/test_mod.py";
  tests.symbols = {symbol("tests", SymbolKind::module), symbol("tests.test_api", SymbolKind::test),
                   symbol("tests.test_other", SymbolKind::test), symbol("tests.fixture_db")};
  tests.edges = {edge("tests.test_api", "mod.api"), edge("tests.test_other", "?torch.cat"),
                 edge("tests.fixture_db", "mod.unused")};
  tests.tests = {{"tests/test_mod.py::test_api[1]", "py:tests.test_api", "tests/test_mod.py", 5, {}, {}, 0, {}},
                 {"tests/test_mod.py::test_api[2]", "py:tests.test_api", "tests/test_mod.py", 5, {}, {}, 0, {}},
                 {"tests/test_mod.py::test_other", "py:tests.test_other", "tests/test_mod.py", 9,
                  {"py:tests.fixture_db"}, {}, 0, {}}};
  return {{lib, tests}, {}};
}

TEST(CallGraph, KeepsPlaceholdersAndTestVertices) {
  auto graph = CallGraph::build(sample());
  ASSERT_TRUE(graph.find("?torch.cat").has_value());
  EXPECT_EQ(graph.vertex(*graph.find("?torch.cat")).symbol.kind, SymbolKind::placeholder);
  EXPECT_TRUE(graph.vertex(*graph.find("test:tests/test_mod.py::test_api[1]")).is_test);
  EXPECT_FALSE(graph.vertex(*graph.find("py:tests.test_api")).is_test);
}

TEST(CallGraph, AnEdgeWithoutAFileIsInItsFactsFileAndFilesAreSharedNotMixed) {
  frontend::RepositoryFacts facts;
  frontend::FileFacts a;
  a.path = "pkg/a.py";
  a.symbols = {symbol("a.f"), symbol("a.g")};
  a.edges = {{"py:a.f", "py:a.g", EdgeKind::call, "", 7}, {"py:a.g", "py:b.h", EdgeKind::call, "pkg/inline.h", 9}};
  frontend::FileFacts b;
  b.path = "pkg/b.py";
  b.symbols = {symbol("b.h")};
  b.edges = {{"py:b.h", "py:a.g", EdgeKind::call, "", 4}};
  facts.files = {a, b};
  auto graph = CallGraph::build(facts);
  std::map<std::string, std::string> where;
  for (const char* id : {"py:a.f", "py:a.g", "py:b.h"})
    for (const auto& e : graph.dependencies(*graph.find(id)))
      where[graph.vertex(e.from).symbol.id + "->" + graph.vertex(e.to).symbol.id] =
          std::string(e.file) + ":" + std::to_string(e.line);
  EXPECT_EQ(where, (std::map<std::string, std::string>{{"py:a.f->py:a.g", "pkg/a.py:7"},
                                                       {"py:a.g->py:b.h", "pkg/inline.h:9"},
                                                       {"py:b.h->py:a.g", "pkg/b.py:4"}}));
}

TEST(Impact, ReachesEveryParametrizedIdWithAShortestWitness) {
  auto graph = CallGraph::build(sample());
  auto hits = tests_reaching(graph, {"py:mod.helper"});
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].test_id, "tests/test_mod.py::test_api[1]");
  ASSERT_EQ(hits[0].witness.size(), 4u);  // test id -> test function -> api -> helper
  EXPECT_EQ(hits[0].witness.front().symbol_id, "test:tests/test_mod.py::test_api[1]");
  EXPECT_EQ(hits[0].witness[2].symbol_id, "py:mod.api");
  EXPECT_EQ(hits[0].witness.back().symbol_id, "py:mod.helper");
  EXPECT_EQ(hits[0].distance, 3);
}

TEST(Impact, FixturesCarryReachability) {
  auto graph = CallGraph::build(sample());
  auto hits = tests_reaching(graph, {"py:mod.unused"});
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].test_id, "tests/test_mod.py::test_other");
  EXPECT_EQ(hits[0].witness[0].kind_to_next, EdgeKind::fixture);
}

TEST(Impact, ModuleLevelChangeReachesItsMembersUsers) {
  // contains edges are stored member -> module: a module-level change affects every user of a member.
  auto graph = CallGraph::build(sample());
  auto hits = tests_reaching(graph, {"py:mod"});
  EXPECT_EQ(hits.size(), 3u);
}

TEST(Impact, UnknownSeedsSelectNothing) {
  auto graph = CallGraph::build(sample());
  EXPECT_TRUE(tests_reaching(graph, {"py:nope"}).empty());
  auto path = dependency_path(graph, *graph.find("py:mod.api"), *graph.find("py:mod.helper"));
  EXPECT_EQ(path.size(), 2u);
  EXPECT_TRUE(dependency_path(graph, *graph.find("py:mod.helper"), *graph.find("py:mod.api")).empty());
}

/// helper is called by Work.wait, which nothing resolved calls, and by a -> b -> c.
/// test_guess -> sync --name-match--> ?.wait --name-match--> Work.wait -> helper
/// test_both  -> sync as well, and -> a -> b -> c -> helper: longer, but certain
CallGraph work_graph() {
  frontend::FileFacts lib;
  lib.path = "pkg/work.py";
  lib.symbols = {symbol("work.Work.wait", SymbolKind::method), symbol("work.helper"), symbol("work.sync"),
                 symbol("work.a"), symbol("work.b"), symbol("work.c")};
  lib.edges = {edge("work.sync", "?.wait", EdgeKind::name_match), edge("work.Work.wait", "work.helper"),
               edge("work.a", "work.b"), edge("work.b", "work.c"), edge("work.c", "work.helper")};
  lib.edges.push_back({"?.wait", "py:work.Work.wait", EdgeKind::name_match, "pkg/work.py", 0});
  frontend::FileFacts tests;
  tests.path = "tests/test_work.py";
  tests.symbols = {symbol("tests.test_guess", SymbolKind::test), symbol("tests.test_both", SymbolKind::test)};
  tests.edges = {edge("tests.test_guess", "work.sync"), edge("tests.test_both", "work.sync"),
                 edge("tests.test_both", "work.a")};
  tests.tests = {{"tests/test_work.py::test_guess", "py:tests.test_guess", "tests/test_work.py", 1, {}, {}, 0, {}},
                 {"tests/test_work.py::test_both", "py:tests.test_both", "tests/test_work.py", 5, {}, {}, 0, {}}};
  return CallGraph::build({{lib, tests}, {}});
}

TEST(Impact, AResolvedPathWinsOverAShorterNameMatch) {
  auto graph = work_graph();
  auto hits = tests_reaching(graph, {"py:work.helper"});
  ASSERT_EQ(hits.size(), 2u);
  std::map<std::string, ImpactHit> by_test;
  for (auto& h : hits) by_test[h.test_id] = h;
  const auto& both = by_test.at("tests/test_work.py::test_both");
  EXPECT_EQ(both.name_matches, 0);
  EXPECT_EQ(both.distance, 5);  // test id -> test function -> a -> b -> c -> helper
  const auto& guess = by_test.at("tests/test_work.py::test_guess");
  EXPECT_EQ(guess.name_matches, 2);  // sync -> ?.wait -> Work.wait: one guessed call, two edges
  EXPECT_EQ(guess.distance, 5);      // test id -> test function -> sync -> ?.wait -> Work.wait -> helper
  ASSERT_EQ(guess.witness.size(), 6u);
  EXPECT_EQ(guess.witness[2].kind_to_next, EdgeKind::name_match);
  EXPECT_EQ(guess.witness[3].symbol_id, "?.wait");
}

TEST(Impact, AMethodWithResolvedCallersIsNotReachedByName) {
  // Work.wait is called by resolved code (a), and matched by name from sync's unresolved x.wait():
  // only a's test is selected; Other.wait, which nothing resolved calls, keeps its name matches.
  frontend::FileFacts lib;
  lib.path = "pkg/work.py";
  lib.symbols = {symbol("work.Work.wait", SymbolKind::method), symbol("work.Other.wait", SymbolKind::method),
                 symbol("work.sync"), symbol("work.a")};
  lib.edges = {edge("work.sync", "?.wait", EdgeKind::name_match), edge("work.a", "work.Work.wait")};
  lib.edges.push_back({"?.wait", "py:work.Work.wait", EdgeKind::name_match, "pkg/work.py", 0});
  lib.edges.push_back({"?.wait", "py:work.Other.wait", EdgeKind::name_match, "pkg/work.py", 0});
  frontend::FileFacts tests;
  tests.path = "tests/test_work.py";
  tests.symbols = {symbol("tests.test_sync", SymbolKind::test), symbol("tests.test_a", SymbolKind::test)};
  tests.edges = {edge("tests.test_sync", "work.sync"), edge("tests.test_a", "work.a")};
  tests.tests = {{"tests/test_work.py::test_sync", "py:tests.test_sync", "tests/test_work.py", 1, {}, {}, 0, {}},
                 {"tests/test_work.py::test_a", "py:tests.test_a", "tests/test_work.py", 5, {}, {}, 0, {}}};
  auto graph = CallGraph::build({{lib, tests}, {}});
  auto resolved = tests_reaching(graph, {"py:work.Work.wait"});
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].test_id, "tests/test_work.py::test_a");
  auto guessed = tests_reaching(graph, {"py:work.Other.wait"});
  ASSERT_EQ(guessed.size(), 1u);
  EXPECT_EQ(guessed[0].test_id, "tests/test_work.py::test_sync");
  EXPECT_EQ(guessed[0].name_matches, 2);
}

/// Tests of `pkg/base.py` that reach a changed symbol, linked from real source.
std::set<std::string> tests_reaching_in_source(const std::string& changed) {
  std::vector<frontend::python::ModuleRecord> records;
  records.push_back(frontend::python::parse_module("pkg/__init__.py", ""));
  records.push_back(frontend::python::parse_module("pkg/base.py", R"(
class Module:
    def __init__(self, config):
        self.config = config

    @classmethod
    def create(cls, config):
        return cls(config)


class Attention(Module):
    def __init__(self, config):
        super().__init__(config)


class Wrapper(Module):
    def __init__(self, config, inner=None):
        super().__init__(config)
        self.inner = inner


class Mixin:
    def __init__(self, config):
        super().__init__(config)


class Both(Mixin, Wrapper):
    pass
)"));
  records.push_back(frontend::python::parse_module("tests/test_base.py", R"(
from pkg.base import Attention, Both, Module, Wrapper


def test_attention():
    Attention({})


def test_wrapper():
    Wrapper({})


def test_create():
    Module.create({})


def test_both():
    Both({})
)"));
  auto graph = CallGraph::build(frontend::python::link_modules(std::move(records)));
  std::set<std::string> out;
  for (const auto& hit : tests_reaching(graph, {changed})) out.insert(hit.test_id);
  return out;
}

TEST(Impact, AChangedConstructorIsReachedByTheCallsThatRunItNotByEveryCallOfItsBases) {
  // Attention's super().__init__ runs Module.__init__ for an Attention: never Wrapper.__init__.
  // Module.create's cls(...) may be any subclass; Both's Mixin.__init__ continues to Wrapper's by MRO.
  EXPECT_EQ(tests_reaching_in_source("py:pkg.base.Wrapper.__init__"),
            (std::set<std::string>{"tests/test_base.py::test_wrapper", "tests/test_base.py::test_create",
                                   "tests/test_base.py::test_both"}));
  // A base constructor stays reached by every subclass's construction, through super().
  EXPECT_EQ(tests_reaching_in_source("py:pkg.base.Module.__init__").size(), 4u);
}

/// Every test that `source` alone reaches by resolved paths (tests_reaching with it as the only seed).
std::set<std::string> resolved_tests_of(const CallGraph& graph, const std::string& source) {
  std::set<std::string> out;
  for (const auto& hit : tests_reaching(graph, {source}))
    if (hit.name_matches == 0) out.insert(hit.test_id);
  return out;
}

TEST(Impact, EachSourceCountsForEveryTestItReachesAloneNotOnlyItsNearest) {
  // test_both reaches helper (through a -> b -> c), b on the way, and sync: all three count for it,
  // not only its nearest; Work.wait, reached from sync by a name match only, counts for nobody.
  auto graph = work_graph();
  std::vector<std::string> sources = {"py:work.helper", "py:nope", "py:work.Work.wait", "py:work.b", "py:work.sync"};
  auto reach = tests_reached_by_each(graph, sources);
  std::map<std::string, std::vector<std::uint32_t>> by_test;
  for (const auto& r : reach) by_test[r.test_id] = r.sources;
  EXPECT_EQ(by_test["tests/test_work.py::test_both"], (std::vector<std::uint32_t>{0, 3, 4}));
  EXPECT_EQ(by_test["tests/test_work.py::test_guess"], (std::vector<std::uint32_t>{4}));
  for (std::uint32_t i = 0; i < sources.size(); ++i) {
    std::set<std::string> alone;
    for (const auto& r : reach)
      if (std::find(r.sources.begin(), r.sources.end(), i) != r.sources.end()) alone.insert(r.test_id);
    EXPECT_EQ(alone, resolved_tests_of(graph, sources[i])) << sources[i];
  }
}

TEST(Impact, ReachSetsHoldAcrossBatchesOfSources) {
  // 150 functions in a chain f0 <- f1 <- ... <- f149, test_k calling f_k: test_k reaches f0..f_k,
  // sources of three 64-bit batches.
  frontend::FileFacts lib;
  lib.path = "pkg/chain.py";
  frontend::FileFacts tests;
  tests.path = "tests/test_chain.py";
  std::vector<std::string> sources;
  for (int k = 0; k < 150; ++k) {
    std::string f = "chain.f" + std::to_string(k), t = "tests.test_" + std::to_string(k);
    lib.symbols.push_back(symbol(f));
    if (k > 0) lib.edges.push_back(edge(f, "chain.f" + std::to_string(k - 1)));
    tests.symbols.push_back(symbol(t, SymbolKind::test));
    tests.edges.push_back(edge(t, f));
    tests.tests.push_back({"tests/test_chain.py::test_" + std::to_string(k), "py:" + t, "tests/test_chain.py", k + 1, {}, {}, 0, {}});
    sources.push_back("py:" + f);
  }
  auto graph = CallGraph::build({{lib, tests}, {}});
  auto reach = tests_reached_by_each(graph, sources);
  ASSERT_EQ(reach.size(), 150u);
  for (const auto& r : reach) {
    int k = std::stoi(r.test_id.substr(r.test_id.rfind('_') + 1));
    ASSERT_EQ(r.sources.size(), static_cast<std::size_t>(k + 1)) << r.test_id;
    EXPECT_EQ(r.sources.back(), static_cast<std::uint32_t>(k));
  }
}

TEST(Dot, NeighbourhoodNamesTheCenterAndEdgeKinds) {
  auto graph = CallGraph::build(sample());
  auto dot = neighbourhood_dot(graph, *graph.find("py:mod.api"), 1);
  EXPECT_NE(dot.find("fillcolor=gold"), std::string::npos);
  EXPECT_NE(dot.find("mod.helper"), std::string::npos);
  EXPECT_NE(dot.find("label=\"call\""), std::string::npos);
}

TEST(Dot, NeighbourhoodDoesNotWalkThroughPlaceholders) {
  auto facts = sample();
  // mod.api also calls torch.cat, which tests.test_other calls: test_other is not api's neighbour.
  facts.files[0].edges.push_back(edge("mod.api", "?torch.cat"));
  auto graph = CallGraph::build(facts);
  auto dot = neighbourhood_dot(graph, *graph.find("py:mod.api"), 2);
  EXPECT_NE(dot.find("torch.cat"), std::string::npos);
  EXPECT_EQ(dot.find("tests.test_other"), std::string::npos) << dot;
}

}  // namespace
}  // namespace fastci::callgraph
