#include "callgraph/live_name_matches.h"

#include <gtest/gtest.h>

#include <set>

#include "callgraph/impact.h"
#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"

namespace fastci::callgraph {
namespace {

/// `describe` reads `.name` on a value of unknown type (`part` returns a getattr by a run-time name):
/// a name match into every class attribute `name`, at module level and in functions.
CallGraph engines() {
  std::vector<frontend::python::ModuleRecord> records;
  records.push_back(frontend::python::parse_module("pkg/__init__.py", ""));
  records.push_back(frontend::python::parse_module("pkg/engines.py", R"(
class Engine:
    name = "engine"


def make_local():
    class Local:
        name = "local"

    return Local()


def install(obj):
    # stored on an object, called by nobody the analysis sees
    class Patched:
        name = "patched"

    obj.cls = Patched
)"));
  records.push_back(frontend::python::parse_module("pkg/uses.py", R"(
def describe(x):
    return x.name


def part(obj, name):
    return getattr(obj, name)
)"));
  records.push_back(frontend::python::parse_module("tests/test_engines.py", R"(
from pkg.engines import Engine, make_local
from pkg.uses import describe, part


def test_engine():
    describe(part(Engine(), "me"))


def test_nothing():
    describe(part(object(), "me"))


def test_local():
    describe(part(make_local(), "me"))


def test_fake():
    class FakeEngine:
        name = "fake"

    describe(part(FakeEngine(), "me"))
)"));
  return CallGraph::build(frontend::python::link_modules(std::move(records)));
}

std::string last_name(const std::string& id) { return id.substr(id.rfind(':') + 1); }

std::set<std::string> live(const CallGraph& graph, const std::string& changed) {
  std::set<std::string> out;
  for (auto v : tests_with_live_name_matches(graph, {changed})) out.insert(last_name(graph.vertex(v).symbol.id));
  return out;
}

std::set<std::string> by_name_match(const CallGraph& graph, const std::string& changed) {
  std::set<std::string> out;
  for (const auto& hit : tests_reaching(graph, {changed}))
    if (hit.name_matches > 0) out.insert(last_name(hit.test_id));
  return out;
}

const std::set<std::string> kEveryDescriber = {"test_engine", "test_nothing", "test_local", "test_fake"};

TEST(LiveNameMatches, AClassDefinedInATestIsHeldOnlyByThatTest) {
  auto graph = engines();
  const std::string fake = "py:tests.test_engines.test_fake.FakeEngine.name=";
  ASSERT_EQ(by_name_match(graph, fake), kEveryDescriber);
  EXPECT_EQ(live(graph, fake), (std::set<std::string>{"test_fake"}));
}

TEST(LiveNameMatches, AClassDefinedInALibraryFunctionIsHeldByTheTestsReachingIt) {
  auto graph = engines();
  const std::string local = "py:pkg.engines.make_local.Local.name=";
  ASSERT_EQ(by_name_match(graph, local), kEveryDescriber);
  EXPECT_EQ(live(graph, local), (std::set<std::string>{"test_local"}));
}

TEST(LiveNameMatches, NoTestIsRuledOutWhereTheClassMayBeHadAnotherWay) {
  auto graph = engines();
  // A module-level class may be made by reflection (getattr(module, name)()): every test stays.
  ASSERT_EQ(by_name_match(graph, "py:pkg.engines.Engine.name="), kEveryDescriber);
  EXPECT_EQ(live(graph, "py:pkg.engines.Engine.name="), kEveryDescriber);
  // A function nothing is seen to call may run for any test.
  ASSERT_EQ(by_name_match(graph, "py:pkg.engines.install.Patched.name="), kEveryDescriber);
  EXPECT_EQ(live(graph, "py:pkg.engines.install.Patched.name="), kEveryDescriber);
  EXPECT_TRUE(tests_with_live_name_matches(graph, {"py:nope"}).empty());
}

TEST(LiveNameMatches, MembersAndTheirClassesAndDefiningFunctions) {
  auto graph = engines();
  auto at = [&](const char* id) { return *graph.find(id); };
  EXPECT_EQ(class_of_member(graph, at("py:pkg.engines.Engine.name=")), at("py:pkg.engines.Engine"));
  EXPECT_FALSE(class_of_member(graph, at("py:pkg.engines.make_local")).has_value());
  EXPECT_EQ(defining_function(graph, at("py:pkg.engines.make_local.Local")), at("py:pkg.engines.make_local"));
  EXPECT_FALSE(defining_function(graph, at("py:pkg.engines.Engine")).has_value());
}

}  // namespace
}  // namespace fastci::callgraph
