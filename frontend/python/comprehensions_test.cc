// Comprehensions: their variables hold the iterable's elements, and the container a comprehension
// makes holds what its body makes (Megatron-LM's `wrapped = [DP(chunk) for chunk in model_chunks]`,
// iterated by the caller as `for model_module in model: model_module.broadcast_params()`).
#include <gtest/gtest.h>

#include <string>

#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;
using testing::link_one;

TEST(Comprehensions, TheContainerHoldsWhatTheBodyMakes) {
  auto facts = link_one(
      "import torch\n"
      "class DDP:\n"
      "    def broadcast_params(self): pass\n"
      "def wrap(chunks, DP=DDP):\n"
      "    wrapped = [DP(c) for c in chunks]\n"
      "    return wrapped\n"
      "def get_model(flag):\n"
      "    model = [torch.nn.Linear(1, 1)]\n"
      "    if flag:\n"
      "        model = wrap(model, DP=DDP)\n"
      "    for m in model:\n"
      "        m.broadcast_params()\n"
      "def handlers():\n"
      "    table = {name: DDP() for name in ('a', 'b')}\n"
      "    table['a'].broadcast_params()\n"
      "    gen = (DDP() for _ in range(2))\n"
      "    for g in gen:\n"
      "        g.broadcast_params()\n");
  EXPECT_TRUE(has_edge(facts, "py:m.get_model", "py:m.DDP.broadcast_params", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.handlers", "py:m.DDP.broadcast_params", EdgeKind::call));
}

TEST(Comprehensions, TheVariableHoldsTheElements) {
  auto facts = link_one(
      "class A:\n"
      "    def forward(self): pass\n"
      "class B:\n"
      "    def forward(self): pass\n"
      "class Model:\n"
      "    def __init__(self):\n"
      "        self.layers = [A(), B()]\n"
      "    def forward(self):\n"
      "        return [layer.forward() for layer in self.layers]\n"
      "def pairs():\n"
      "    named = {'a': A()}\n"
      "    return {k: v.forward() for k, v in named.items()}\n");
  EXPECT_TRUE(has_edge(facts, "py:m.Model.forward", "py:m.A.forward", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.Model.forward", "py:m.B.forward", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.pairs", "py:m.A.forward", EdgeKind::call));
}

TEST(Comprehensions, TheVariableIsNoModuleVariable) {
  // In Python 3 a comprehension's variable is its own: at module level it is no variable of the
  // module (no symbol whose change would select its readers), while NAMES is.
  auto record = parse_module("m.py",
                             "def other(): pass\n"
                             "OTHERS = [other]\n"
                             "NAMES = [x.__name__ for x in OTHERS]\n");
  bool names = false, x = false;
  for (const auto& symbol : record.facts.symbols) {
    names = names || symbol.id.find("NAMES") != std::string::npos;
    x = x || symbol.id == "py:m.x" || symbol.id.starts_with("py:m.x=");
  }
  EXPECT_TRUE(names);
  EXPECT_FALSE(x);
}

TEST(Comprehensions, TheVariableDoesNotHideWhatEnclosingScopesBind) {
  // torchtune's recipe tests: `config` is the module imported at module level, and a comprehension
  // elsewhere in the function names its variable `config` too; the module is still read.
  auto facts = link_one(
      "class Config:\n"
      "    def instantiate(self): pass\n"
      "config = Config()\n"
      "def test(configs):\n"
      "    names = [config.name for config in configs]\n"
      "    config.instantiate()\n");
  EXPECT_TRUE(has_edge(facts, "py:m.test", "py:m.Config.instantiate", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.test", "py:m.config=", EdgeKind::read));  // the module variable's reader
}

}  // namespace
}  // namespace fastci::frontend::python
