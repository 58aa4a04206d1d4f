// Subscripts read by position and by constant: xs[1]() of a list literal reaches the element at
// 1 while nothing may have moved the elements (no insert, pop, sort, del, slice store, no alias
// or argument the list escapes through); xs[k]() reads the constants k certainly holds (literal
// bindings through aliases, imports, defaults and every call site's literal argument), and every
// element where anything about k is unknown.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;
using testing::link_one;

using testing::kThreeFunctions;

/// Which of f, g, h `from` calls, as "fg" and so on.
std::string called(const RepositoryFacts& facts, const std::string& from) {
  std::string out;
  for (const char* name : {"f", "g", "h"})
    if (has_edge(facts, "py:m." + from, std::string("py:m.") + name, EdgeKind::call)) out += name;
  return out;
}

TEST(ConstantSubscripts, ALiteralsPositionIsReadWhileNothingMovesTheElements) {
  auto facts = link_one(std::string(kThreeFunctions) +
                        "def plain():\n"
                        "    xs = [f, g]\n"
                        "    xs[1]()\n"
                        "def iterated():\n"
                        "    ws = [f, g]\n"
                        "    for w in ws:\n"  // iterating hands on elements, not the list
                        "        print(w)\n"
                        "    ws[1]()\n"
                        "def a_tuple():\n"
                        "    t = (f, g, h)\n"
                        "    t[0]()\n"
                        "def appended():\n"
                        "    ys = [f]\n"
                        "    ys.append(g)\n"
                        "    ys[0]()\n"  // g lands after f: read anyway (no position is known for it)
                        "def starred(more):\n"
                        "    zs = [*more, f, g]\n"
                        "    zs[0]()\n"  // positions after a splat are unknown
                        "def commented():\n"
                        "    cs = [\n"
                        "        # the first\n"
                        "        f,\n"
                        "        g,\n"
                        "    ]\n"
                        "    cs[1]()\n");
  EXPECT_EQ(called(facts, "plain"), "g");
  EXPECT_EQ(called(facts, "iterated"), "g");
  EXPECT_EQ(called(facts, "a_tuple"), "f");
  EXPECT_EQ(called(facts, "appended"), "fg");
  EXPECT_EQ(called(facts, "starred"), "fg");
  EXPECT_EQ(called(facts, "commented"), "g");
}

TEST(ConstantSubscripts, MovedOrEscapedListsReadEveryElement) {
  auto facts = link_one(std::string(kThreeFunctions) +
                        "def reorder(items):\n"
                        "    items.sort()\n"
                        "def inserted():\n"
                        "    a = [f, g]\n"
                        "    a.insert(0, h)\n"
                        "    a[1]()\n"
                        "def deleted():\n"
                        "    b = [f, g]\n"
                        "    del b[0]\n"
                        "    b[0]()\n"
                        "def sliced_store():\n"
                        "    c = [f, g]\n"
                        "    c[0:1] = []\n"
                        "    c[0]()\n"
                        "def passed():\n"
                        "    d = [f, g]\n"
                        "    reorder(d)\n"
                        "    d[0]()\n"
                        "def aliased():\n"
                        "    e = [f, g]\n"
                        "    other = e\n"
                        "    other.reverse()\n"
                        "    e[0]()\n");
  EXPECT_EQ(called(facts, "inserted"), "fgh");
  EXPECT_EQ(called(facts, "deleted"), "fg");
  EXPECT_EQ(called(facts, "sliced_store"), "fg");
  EXPECT_EQ(called(facts, "passed"), "fg");
  EXPECT_EQ(called(facts, "aliased"), "fg");
}

TEST(ConstantSubscripts, ASliceWithLiteralBoundsShiftsThePositions) {
  auto facts = link_one(std::string(kThreeFunctions) +
                        "xs = [f, g, h]\n"
                        "def middle():\n"
                        "    ys = xs[1:3]\n"
                        "    ys[0]()\n"
                        "def tail():\n"
                        "    zs = xs[2:]\n"
                        "    zs[0]()\n"
                        "def stepped():\n"
                        "    ws = xs[0:3:2]\n"
                        "    ws[1]()\n");  // a step: every element
  EXPECT_EQ(called(facts, "middle"), "g");
  EXPECT_EQ(called(facts, "tail"), "h");
  EXPECT_EQ(called(facts, "stepped"), "fgh");
}

TEST(ConstantSubscripts, ANameKeyReadsTheConstantsItCertainlyHolds) {
  auto facts = link_one(std::string(kThreeFunctions) +
                        "TABLE = [f, g, h]\n"
                        "FIRST = 0\n"
                        "SECOND = FIRST\n"
                        "def by_constant():\n"
                        "    TABLE[SECOND]()\n"
                        "def by_parameter(k):\n"
                        "    TABLE[k]()\n"
                        "by_parameter(1)\n"
                        "by_parameter(k=2)\n"
                        "def by_default(k=0):\n"
                        "    TABLE[k]()\n"
                        "by_default()\n"
                        "def by_expression(k):\n"
                        "    TABLE[k]()\n"
                        "by_expression(1)\n"
                        "by_expression(2 - 1)\n"  // not a literal: every element
                        "def never_called(k):\n"
                        "    TABLE[k]()\n"
                        "def mixed(c, n):\n"
                        "    k = 1 if c else n + 1\n"
                        "    TABLE[k]()\n"
                        "BUMPED = 0\n"
                        "def bump():\n"
                        "    global BUMPED\n"
                        "    BUMPED += 1\n"
                        "def by_bumped():\n"
                        "    TABLE[BUMPED]()\n"
                        "DICT = {0: f, 1: g}\n"
                        "def dict_by_constant():\n"
                        "    DICT[FIRST]()\n");
  EXPECT_EQ(called(facts, "by_constant"), "f");
  EXPECT_EQ(called(facts, "by_parameter"), "gh");
  EXPECT_EQ(called(facts, "by_default"), "f");
  EXPECT_EQ(called(facts, "by_expression"), "fgh");
  EXPECT_EQ(called(facts, "never_called"), "fgh");
  EXPECT_EQ(called(facts, "mixed"), "fgh");
  EXPECT_EQ(called(facts, "by_bumped"), "fgh");
  EXPECT_EQ(called(facts, "dict_by_constant"), "f");
}

TEST(ConstantSubscripts, AnImportedConstantIsReadUnlessAnotherModuleStoresIt) {
  auto link = [](const std::string& other) {
    std::vector<ModuleRecord> records;
    records.push_back(parse_module("ext.py", "key = 1\nother = 0\n"));
    records.push_back(parse_module("m.py", std::string(kThreeFunctions) +
                                               "from ext import key, other\n"
                                               "TABLE = [f, g, h]\n"
                                               "def imported():\n"
                                               "    TABLE[key]()\n"
                                               "def stored():\n"
                                               "    TABLE[other]()\n"));
    records.push_back(parse_module("setter.py", other));
    return link_modules(std::move(records));
  };
  auto facts = link("import ext\n");
  EXPECT_EQ(called(facts, "imported"), "g");
  EXPECT_EQ(called(facts, "stored"), "f");
  facts = link("import ext\next.other = 2\n");
  EXPECT_EQ(called(facts, "imported"), "g");
  EXPECT_EQ(called(facts, "stored"), "fgh");
  facts = link("import ext\nsetattr(ext, 'key', 2)\n");
  EXPECT_EQ(called(facts, "imported"), "fgh");
}

}  // namespace
}  // namespace fastci::frontend::python
