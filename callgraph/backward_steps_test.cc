#include "callgraph/backward_steps.h"

#include <gtest/gtest.h>

#include <set>

namespace fastci::callgraph {
namespace {

using frontend::EdgeKind;
using frontend::SymbolKind;

frontend::Symbol symbol(const std::string& name, SymbolKind kind = SymbolKind::method) {
  frontend::Symbol s;
  s.id = "py:" + name;
  s.kind = kind;
  s.qualified_name = name;
  s.file = "pkg/m.py";
  return s;
}

std::set<std::pair<std::string, bool>> steps_from(const CallGraph& graph, BackwardSteps& steps, const std::string& id) {
  std::set<std::pair<std::string, bool>> out;
  for (const auto& s : steps.from(*graph.find(id))) out.insert({graph.vertex(s.from).symbol.id, s.name_match});
  return out;
}

TEST(BackwardSteps, NameMatchesOnlyWhereNoResolvedCallerIsSeenAndNoOverrideIntoAConstructor) {
  frontend::FileFacts f;
  f.path = "pkg/m.py";
  f.symbols = {symbol("m.Work.wait"), symbol("m.Other.wait"), symbol("m.a", SymbolKind::function),
               symbol("m.Base.__init__"), symbol("m.Sub.__init__"), symbol("m.b", SymbolKind::function)};
  f.edges = {{"?.wait", "py:m.Work.wait", EdgeKind::name_match, "", 0},
             {"?.wait", "py:m.Other.wait", EdgeKind::name_match, "", 0},
             {"py:m.a", "py:m.Work.wait", EdgeKind::call, "", 3},
             {"py:m.Base.__init__", "py:m.Sub.__init__", EdgeKind::override_, "", 5},
             {"py:m.b", "py:m.Sub.__init__", EdgeKind::call, "", 7}};
  auto graph = CallGraph::build({{f}, {}});
  BackwardSteps steps(graph);
  // Work.wait has a resolved caller: reached through it only; Other.wait through every `.wait`.
  EXPECT_EQ(steps_from(graph, steps, "py:m.Work.wait"), (std::set<std::pair<std::string, bool>>{{"py:m.a", false}}));
  EXPECT_EQ(steps_from(graph, steps, "py:m.Other.wait"), (std::set<std::pair<std::string, bool>>{{"?.wait", true}}));
  // A call of the base's constructor does not run the subclass's.
  EXPECT_EQ(steps_from(graph, steps, "py:m.Sub.__init__"), (std::set<std::pair<std::string, bool>>{{"py:m.b", false}}));
  // Asked again, the same steps (kept, not found again).
  EXPECT_EQ(&steps.from(*graph.find("py:m.Other.wait")), &steps.from(*graph.find("py:m.Other.wait")));
  EXPECT_TRUE(python_constructor(symbol("m.Sub.__init__")));
  EXPECT_FALSE(python_constructor(symbol("m.Work.wait")));
}

}  // namespace
}  // namespace fastci::callgraph
