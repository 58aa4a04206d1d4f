// A decorated name holds what its decorator returns: the undecorated function leaves the name's
// values only where the decorator surely wraps it (the wrapper then reaches it).
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

TEST(DecoratedNames, AWrapperReplacesTheFunctionOnlyWhereTheDecoratorSurelyWrapsIt) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("m.py",
                                 "def wrap(f):\n"
                                 "    def inner(*a):\n"
                                 "        return f(*a)\n"
                                 "    return inner\n"
                                 "def identity(f):\n"
                                 "    return f\n"
                                 "def maybe(f):\n"
                                 "    def inner():\n"
                                 "        f()\n"
                                 "    return inner if f else f\n"
                                 "def first(f):\n"
                                 "    def inner():\n"
                                 "        f()\n"
                                 "    return inner\n"
                                 "@wrap\n"
                                 "def wrapped(): pass\n"
                                 "@identity\n"
                                 "def kept(): pass\n"
                                 "@maybe\n"
                                 "def unknown(): pass\n"
                                 "@first\n"
                                 "@wrap\n"
                                 "def chained(): pass\n"
                                 "class C:\n"
                                 "    @wrap\n"
                                 "    def method(self): pass\n"
                                 "def use():\n"
                                 "    wrapped()\n"
                                 "    kept()\n"
                                 "    unknown()\n"
                                 "    chained()\n"
                                 "    C().method()\n"));
  auto facts = link_modules(std::move(modules));
  // The name is the wrapper, which calls the function.
  EXPECT_FALSE(has_edge(facts, "py:m.use", "py:m.wrapped", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.use", "py:m.wrap.inner", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.wrap.inner", "py:m.wrapped", EdgeKind::call));
  // A decorator that returns its parameter, or returns something not read here, keeps it.
  EXPECT_TRUE(has_edge(facts, "py:m.use", "py:m.kept", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.use", "py:m.unknown", EdgeKind::call));
  // Chains and methods (whose overriders a wrapper would not name) keep it too.
  EXPECT_TRUE(has_edge(facts, "py:m.use", "py:m.chained", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.use", "py:m.C.method", EdgeKind::call));
}

}  // namespace
}  // namespace fastci::frontend::python
