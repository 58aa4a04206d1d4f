// Library functions that call what they are given (map, filter, sorted(key=), functools.reduce):
// their caller calls those functions; map's result holds what the function returns.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

TEST(HigherOrderCalls, FunctionsPassedToMapSortedAndReduceAreCalled) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("m.py",
                                 "import functools\n"
                                 "class Dataset:\n"
                                 "    def __call__(self):\n"
                                 "        pass\n"
                                 "def score(x): return x\n"
                                 "def keep(x): return True\n"
                                 "def add(a, b): return a + b\n"
                                 "def handler(): pass\n"
                                 "def make_handler(x): return handler\n"
                                 "def run(items, data=Dataset()):\n"
                                 "    list(map(score, data))\n"
                                 "    filter(keep, items)\n"
                                 "    sorted(items, key=score)\n"
                                 "    functools.reduce(add, items)\n"
                                 "    for h in map(make_handler, items):\n"
                                 "        h()\n"
                                 "def not_called(items):\n"
                                 "    print(score, items)\n"));
  auto facts = link_modules(std::move(modules));
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.score", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.keep", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.add", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.make_handler", EdgeKind::call));
  // Iterating map's result gives what the function returns.
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.handler", EdgeKind::call));
  // The iterable beside the function is not called.
  EXPECT_FALSE(has_edge(facts, "py:m.run", "py:m.Dataset.__call__", EdgeKind::call));
  // Any other library function only receives the function: a reference, not a call.
  EXPECT_FALSE(has_edge(facts, "py:m.not_called", "py:m.score", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.not_called", "py:m.score", EdgeKind::reference));
}

}  // namespace
}  // namespace fastci::frontend::python
