// Container elements under constant keys: d["k"]() reaches what was stored under "k" (a literal's
// pair, a store, update, dict(k=...)) and what was stored without a known key, not the other
// keys' elements; a store of the body replaces the key's element for the reads after it.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;
using testing::link_one;

using testing::kThreeFunctions;

TEST(KeyedElements, AConstantKeyReadsThatKeysElementAndUnkeyedStores) {
  auto facts = link_one((std::string(kThreeFunctions) +
                         "def literal():\n"
                         "    d = {'a': f, 'b': g}\n"
                         "    d['a']()\n"
                         "def unknown_key(name):\n"
                         "    d = {'a': f, 'b': g}\n"
                         "    d[name] = h\n"
                         "    d['a']()\n"          // h may be under 'a'
                         "def merged(other):\n"
                         "    d = {'a': f}\n"
                         "    d.update(other)\n"
                         "    d['a']()\n"          // whatever other holds: unknown here, so f only
                         "def variable_key(name):\n"
                         "    d = {'a': f, 'b': g}\n"
                         "    d[name]()\n"         // every element
                         "def types():\n"
                         "    d = {1: f, '1': g}\n"
                         "    d[1]()\n"
                         "def keywords():\n"
                         "    d = dict(a=f, b=g)\n"
                         "    d['b']()\n")
                            .c_str());
  EXPECT_TRUE(has_edge(facts, "py:m.literal", "py:m.f", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.literal", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.unknown_key", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.unknown_key", "py:m.h", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.unknown_key", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.merged", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.variable_key", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.variable_key", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.types", "py:m.f", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.types", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.keywords", "py:m.g", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.keywords", "py:m.f", EdgeKind::call));
}

TEST(KeyedElements, AStoreOfTheBodyReplacesTheKeyForLaterReads) {
  auto facts = link_one((std::string(kThreeFunctions) +
                         "def replaced():\n"
                         "    d = {'a': f}\n"
                         "    d['a'] = g\n"
                         "    d['a']()\n"
                         "def before():\n"
                         "    d = {'a': f}\n"
                         "    d['a']()\n"
                         "    d['a'] = g\n"
                         "def branch(c):\n"
                         "    d = {'a': f}\n"
                         "    if c:\n"
                         "        d['a'] = g\n"
                         "    d['a']()\n"
                         "def updated():\n"
                         "    d = {'a': f}\n"
                         "    d.update({'a': h})\n"
                         "    d['a']()\n"
                         "def nested():\n"
                         "    d = {'a': {'b': f, 'c': g}}\n"
                         "    d['a']['b'] = h\n"
                         "    d['a']['b']()\n"
                         "def nested_other_key():\n"
                         "    d = {'a': {'b': f, 'c': g}}\n"
                         "    d['a']['c']()\n")
                            .c_str());
  EXPECT_TRUE(has_edge(facts, "py:m.replaced", "py:m.g", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.replaced", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.before", "py:m.f", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.before", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.branch", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.branch", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.updated", "py:m.h", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.updated", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.nested", "py:m.h", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.nested", "py:m.f", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.nested", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.nested_other_key", "py:m.g", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.nested_other_key", "py:m.f", EdgeKind::call));
}

TEST(KeyedElements, AModuleRegistryReadInAFunctionKeepsEveryStoreOfThatKey) {
  // The function runs after the module body (or during it): no order is assumed, only the key.
  auto facts = link_one((std::string(kThreeFunctions) +
                         "REGISTRY = {'adam': f, 'sgd': g}\n"
                         "def register(name, fn):\n"
                         "    REGISTRY[name] = fn\n"
                         "def build():\n"
                         "    return REGISTRY['adam']()\n"
                         "REGISTRY['adam'] = h\n"
                         "register('x', g)\n")
                            .c_str());
  EXPECT_TRUE(has_edge(facts, "py:m.build", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.build", "py:m.h", EdgeKind::call));
  // register's store has no constant key: what it stores (g, by parameter flow) may be 'adam'.
  EXPECT_TRUE(has_edge(facts, "py:m.build", "py:m.g", EdgeKind::call));
}

TEST(KeyedElements, UnresolvedKeyedCallsKeepThePlainPlaceholder) {
  auto facts = link_one(
      "def run(table):\n"
      "    table['a']()\n");
  EXPECT_TRUE(has_edge(facts, "py:m.run", "?table[]", EdgeKind::call));
}

}  // namespace
}  // namespace fastci::frontend::python
