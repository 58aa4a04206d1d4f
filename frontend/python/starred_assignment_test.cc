// Tuple unpacking with a starred target: `a, *rest, z = f, g, h, k` binds a and z to the ends and
// rest to a list of the middle values.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

TEST(StarredAssignment, EndsBindOneToOneAndTheStarredNameHoldsTheRest) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("m.py",
                                 "def f(): pass\n"
                                 "def g(): pass\n"
                                 "def h(): pass\n"
                                 "def k(): pass\n"
                                 "def run():\n"
                                 "    first, *middle, last = f, g, h, k\n"
                                 "    first()\n"
                                 "    middle[0]()\n"
                                 "    last()\n"
                                 "def pair():\n"
                                 "    one, two = g, f()\n"
                                 "    one()\n"
                                 "def empty_rest():\n"
                                 "    head, *tail = [k]\n"
                                 "    head()\n"));
  auto facts = link_modules(std::move(modules));
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.h", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.k", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.pair", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.empty_rest", "py:m.k", EdgeKind::call));
}

}  // namespace
}  // namespace fastci::frontend::python
