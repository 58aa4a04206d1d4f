// `from m import *` binds what m's `__all__` lists, or, where m has none (or builds it in a way
// not read statically), every public name of m.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

TEST(StarImports, AllIsReadFromLiteralsAndItsExtensions) {
  auto listed = parse_module("m.py",
                             "__all__ = ['a', \"b\"]\n"
                             "__all__ += ('c',)\n"
                             "__all__.extend(['d'])\n"
                             "__all__.append('_e')\n"
                             "def a(): pass\n");
  ASSERT_TRUE(listed.star_exports.has_value());
  EXPECT_EQ(*listed.star_exports, (std::vector<std::string>{"a", "b", "c", "d", "_e"}));
  EXPECT_FALSE(parse_module("n.py", "def a(): pass\n").star_exports.has_value());
  EXPECT_FALSE(parse_module("o.py", "import p\n__all__ = p.__all__ + ['x']\n").star_exports.has_value());
  EXPECT_FALSE(parse_module("q.py", "__all__ = ['x']\n__all__.extend(names())\n").star_exports.has_value());
  auto empty = parse_module("r.py", "__all__ = []\n");
  ASSERT_TRUE(empty.star_exports.has_value());
  EXPECT_TRUE(empty.star_exports->empty());
  // Round trip through the cache form.
  auto back = deserialize(serialize(listed));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->star_exports, listed.star_exports);
  auto none = deserialize(serialize(parse_module("n.py", "def a(): pass\n")));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->star_exports.has_value());
}

TEST(StarImports, BindOnlyWhatAllListsElsePublicNames) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("pkg/__init__.py", ""));
  modules.push_back(parse_module("pkg/ops.py",
                                 "__all__ = ['fused', '_kernel']\n"
                                 "def fused(): pass\n"
                                 "def _kernel(): pass\n"
                                 "def internal(): pass\n"
                                 "def hidden(): pass\n"
                                 "LIMIT = 4\n"));
  modules.push_back(parse_module("pkg/plain.py",
                                 "def public(): pass\n"
                                 "def _private(): pass\n"));
  modules.push_back(parse_module("pkg/internal.py", "def internal(): pass\n"));
  modules.push_back(parse_module("pkg/api.py",
                                 "from pkg.internal import internal\n"
                                 "from pkg.ops import *\n"
                                 "from pkg.plain import *\n"
                                 "def use():\n"
                                 "    fused()\n"
                                 "    _kernel()\n"
                                 "    internal()\n"
                                 "    public()\n"
                                 "    _private()\n"
                                 "    hidden()\n"
                                 "def limit():\n"
                                 "    return LIMIT\n"));
  auto facts = link_modules(std::move(modules));
  EXPECT_TRUE(has_edge(facts, "py:pkg.api.use", "py:pkg.ops.fused", EdgeKind::call));
  // __all__ may list a private name.
  EXPECT_TRUE(has_edge(facts, "py:pkg.api.use", "py:pkg.ops._kernel", EdgeKind::call));
  // Not in ops's __all__: `internal` is the one imported by name.
  EXPECT_FALSE(has_edge(facts, "py:pkg.api.use", "py:pkg.ops.internal", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:pkg.api.use", "py:pkg.internal.internal", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:pkg.api.use", "py:pkg.ops.hidden", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:pkg.api.use", "?hidden", EdgeKind::call));
  // Without __all__: public names only.
  EXPECT_TRUE(has_edge(facts, "py:pkg.api.use", "py:pkg.plain.public", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:pkg.api.use", "py:pkg.plain._private", EdgeKind::call));
  // Variables follow the same rule: LIMIT is not exported by ops.
  EXPECT_FALSE(has_edge(facts, "py:pkg.api.limit", "py:pkg.ops.LIMIT=", EdgeKind::read));
}

TEST(StarImports, ALaterStarImportReplacesAnEarlierOnesNameWhereItCertainlyRan) {
  std::vector<ModuleRecord> records;
  records.push_back(parse_module("a.py", "def f(): pass\ndef g(): pass\n"));
  records.push_back(parse_module("b.py", "def f(): pass\n"));
  records.push_back(parse_module("c.py", "def g(): pass\n"));
  records.push_back(parse_module("both.py",
                                 "from a import *\n"
                                 "from b import *\n"
                                 "try:\n"
                                 "    from c import *\n"
                                 "except ImportError:\n"
                                 "    pass\n"));
  records.push_back(parse_module("main.py",
                                 "from both import f, g\n"
                                 "def run():\n"
                                 "    f()\n"
                                 "    g()\n"));
  auto facts = link_modules(std::move(records));
  EXPECT_TRUE(has_edge(facts, "py:main.run", "py:b.f", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:main.run", "py:a.f", EdgeKind::call));
  // c's import may have failed: a's g stays possible beside c's.
  EXPECT_TRUE(has_edge(facts, "py:main.run", "py:c.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:main.run", "py:a.g", EdgeKind::call));
}

}  // namespace
}  // namespace fastci::frontend::python
