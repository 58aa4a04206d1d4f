// super() follows the method resolution order of the receiver's type, not just the first base.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

RepositoryFacts link_diamond() {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("layers.py",
                                 "import torch\n"
                                 "class Base:\n"
                                 "    def step(self):\n"
                                 "        pass\n"
                                 "class Left(Base):\n"
                                 "    def step(self):\n"
                                 "        super().step()\n"
                                 "class Right(Base):\n"
                                 "    def step(self):\n"
                                 "        super().step()\n"
                                 "class Quiet(Right):\n"
                                 "    pass\n"
                                 "class Both(Left, Quiet):\n"
                                 "    def step(self):\n"
                                 "        super(Left, self).step()\n"
                                 "class Module(torch.nn.Module):\n"
                                 "    def __init__(self):\n"
                                 "        super().__init__()\n"));
  return link_modules(std::move(modules));
}

TEST(SuperByMro, ContinuesAfterTheClassInEachReceiversMro) {
  auto facts = link_diamond();
  // For a Left, super() is Base; for a Both (Both, Left, Quiet, Right, Base) it is Right, found
  // past Quiet, which defines no step.
  EXPECT_TRUE(has_edge(facts, "py:layers.Left.step", "py:layers.Base.step", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:layers.Left.step", "py:layers.Right.step", EdgeKind::call));
  // Right is never followed by Left in any MRO.
  EXPECT_TRUE(has_edge(facts, "py:layers.Right.step", "py:layers.Base.step", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:layers.Right.step", "py:layers.Left.step", EdgeKind::call));
  // super() names implementations: no virtual edges to the overriders.
  EXPECT_FALSE(has_edge(facts, "py:layers.Left.step", "py:layers.Both.step", EdgeKind::virtual_call));
}

TEST(SuperByMro, ExplicitClassArgumentLooksPastThatClass) {
  auto facts = link_diamond();
  // super(Left, self) in Both: after Left in Both's MRO comes Quiet, then Right.
  EXPECT_TRUE(has_edge(facts, "py:layers.Both.step", "py:layers.Right.step", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:layers.Both.step", "py:layers.Left.step", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:layers.Both.step", "py:layers.Both.step", EdgeKind::call));
}

TEST(SuperByMro, LibraryBasesStayPlaceholders) {
  auto facts = link_diamond();
  EXPECT_TRUE(has_edge(facts, "py:layers.Module.__init__", "?torch.nn.Module.__init__", EdgeKind::call));
}

}  // namespace
}  // namespace fastci::frontend::python
