// How many values the resolver keeps per answer: library values (placeholders) are capped lower
// than repository values, so that a parameter many call sites pass library objects to still reaches
// the repository code another site passes (Megatron-LM's ColumnParallelLinear(init_method=...)).
#include <gtest/gtest.h>

#include <string>

#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;
using testing::link_one;

TEST(ValueLimits, LibraryValuesDoNotCrowdOutRepositoryCode) {
  // Twenty call sites pass torch initializers before the one that passes a repository function.
  std::string source =
      "import torch\n"
      "def build(init):\n"
      "    init()\n"
      "def custom_init(): pass\n";
  for (int i = 0; i < 20; ++i) source += "build(torch.nn.init.f" + std::to_string(i) + ")\n";
  source += "build(custom_init)\n";
  auto facts = link_one(source);
  EXPECT_TRUE(has_edge(facts, "py:m.build", "py:m.custom_init", EdgeKind::call));
}

TEST(ValueLimits, ManyRepositoryValuesAreKept) {
  // Twenty repository functions passed: each is reached (more than the cap of library values).
  std::string source = "def build(init):\n    init()\n";
  for (int i = 0; i < 20; ++i) source += "def f" + std::to_string(i) + "(): pass\nbuild(f" + std::to_string(i) + ")\n";
  auto facts = link_one(source);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(has_edge(facts, "py:m.build", "py:m.f" + std::to_string(i), EdgeKind::call)) << i;
}

}  // namespace
}  // namespace fastci::frontend::python
