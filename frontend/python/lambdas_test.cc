// Lambdas are function symbols of their own, named <lambda1>, <lambda2>, ... per enclosing scope
// (PyCG's names); what they call is theirs, and they are called wherever a name, an argument or a
// container holding them is called.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

const char* kSource =
    "def work():\n"                                        // 1
    "    pass\n"                                           // 2
    "def other():\n"                                       // 3
    "    pass\n"                                           // 4
    "def apply(fn, value):\n"                              // 5
    "    return fn(value)\n"                               // 6
    "def run(items):\n"                                    // 7
    "    square = lambda x: work()\n"                      // 8
    "    square(2)\n"                                      // 9
    "    apply(lambda y: other(), 3)\n"                    // 10
    "    table = {'a': lambda: work()}\n"                  // 11
    "    table['a']()\n"                                   // 12
    "    return sorted(items, key=lambda item: other())\n" // 13
    "def make():\n"                                        // 14
    "    return lambda: (lambda: work())\n"                // 15
    "def use_made():\n"                                    // 16
    "    made = make()\n"                                  // 17
    "    inner = made()\n"                                 // 18
    "    inner()\n"                                        // 19
    "def defaults(key=lambda v: other()):\n"               // 20
    "    key(1)\n"                                         // 21
    "HOOK = lambda: work()\n"                              // 22
    "def call_hook():\n"                                   // 23
    "    HOOK()\n"                                         // 24
    "class Box:\n"                                         // 25
    "    scale = lambda self: other()\n"                   // 26
    "    def go(self):\n"                                  // 27
    "        self.scale()\n";                              // 28

TEST(Lambdas, AreSymbolsNamedPerEnclosingScope) {
  auto record = parse_module("m.py", kSource);
  std::vector<std::string> ids;
  for (const auto& s : record.facts.symbols) ids.push_back(s.id);
  for (const char* id : {"py:m.run.<lambda1>", "py:m.run.<lambda2>", "py:m.run.<lambda3>", "py:m.run.<lambda4>",
                         "py:m.make.<lambda1>", "py:m.make.<lambda1>.<lambda1>", "py:m.<lambda1>",
                         "py:m.<lambda2>", "py:m.Box.<lambda1>"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  // The default's lambda is the module's (it is evaluated there), and numbered in source order.
  for (const auto& s : record.facts.symbols) {
    if (s.id == "py:m.<lambda1>") {
      EXPECT_EQ(s.first_line, 20);
    }
    if (s.id == "py:m.<lambda2>") {
      EXPECT_EQ(s.first_line, 22);
    }
    if (s.id == "py:m.run.<lambda3>") {
      EXPECT_EQ(s.first_line, 11);
    }
  }
}

TEST(Lambdas, CallsInsideAreTheLambdasAndItIsCalledWhereItsHoldersAre) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("m.py", kSource));
  auto facts = link_modules(std::move(modules));
  // Assigned to a name and called through it.
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.run.<lambda1>", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.run.<lambda1>", "py:m.work", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.run", "py:m.work", EdgeKind::call));
  // Passed as an argument: the callee calls it.
  EXPECT_TRUE(has_edge(facts, "py:m.apply", "py:m.run.<lambda2>", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.run.<lambda2>", "py:m.other", EdgeKind::call));
  // Stored in a container and called from it.
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.run.<lambda3>", EdgeKind::call));
  // Handed to a library (sorted): no call in the repository, but the maker still references it,
  // so a change to what it calls still reaches run.
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.run.<lambda4>", EdgeKind::reference));
  EXPECT_TRUE(has_edge(facts, "py:m.run.<lambda4>", "py:m.other", EdgeKind::call));
  // Returned, and a lambda returned by a lambda.
  EXPECT_TRUE(has_edge(facts, "py:m.use_made", "py:m.make.<lambda1>", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.use_made", "py:m.make.<lambda1>.<lambda1>", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.make.<lambda1>.<lambda1>", "py:m.work", EdgeKind::call));
  // A default argument's lambda, called through the parameter.
  EXPECT_TRUE(has_edge(facts, "py:m.defaults", "py:m.<lambda1>", EdgeKind::call));
  // A module-level lambda: its variable references it, callers of the name call it.
  EXPECT_TRUE(has_edge(facts, "py:m.HOOK=", "py:m.<lambda2>", EdgeKind::reference));
  EXPECT_TRUE(has_edge(facts, "py:m.call_hook", "py:m.<lambda2>", EdgeKind::call));
  // A lambda class attribute is a method.
  EXPECT_TRUE(has_edge(facts, "py:m.Box.go", "py:m.Box.<lambda1>", EdgeKind::call));
}

}  // namespace
}  // namespace fastci::frontend::python
