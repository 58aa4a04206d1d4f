// Flow order inside one scope: a name rebound by a statement of the scope's own body holds what
// that statement bound for the reads after it, where its values are known; everything else
// stays flow-insensitive (a binding in a branch or loop, a read from a nested function, a
// library wrapper, a `global` assignment in a function).
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;
using testing::link_one;

TEST(FlowOrder, TheLastBindingOfTheBodyBeforeAReadWins) {
  auto facts = link_one(
      "def f(): pass\n"
      "def g(): pass\n"
      "def h(): pass\n"
      "def run():\n"
      "    a = f\n"
      "    a()\n"          // f only
      "    a = g\n"
      "    a()\n"          // g only
      "def loop(items):\n"
      "    b = f\n"
      "    for x in items:\n"
      "        b()\n"      // f, and h from the previous iteration
      "        b = h\n"
      "def branch(c):\n"
      "    d = f\n"
      "    if c:\n"
      "        d = g\n"
      "    d()\n"          // f or g
      "def nested():\n"
      "    e = f\n"
      "    def inner():\n"
      "        e()\n"      // runs later: f or g
      "    e = g\n"
      "    return inner\n");
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.loop", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.loop", "py:m.h", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.branch", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.branch", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.nested.inner", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.nested.inner", "py:m.g", EdgeKind::call));
}

TEST(FlowOrder, ReadsBeforeTheRebindingKeepTheOldValueOnly) {
  // Edges are per caller, so each read gets its own function.
  auto facts = link_one(
      "def f(): pass\n"
      "def g(): pass\n"
      "def before():\n"
      "    a = f\n"
      "    a()\n"
      "    a = g\n"
      "def after():\n"
      "    a = f\n"
      "    a = g\n"
      "    a()\n"
      "def own_value():\n"
      "    a = f\n"
      "    a = (\n"
      "        a)\n"       // the value is read before the statement binds
      "    a()\n");
  EXPECT_TRUE(has_edge(facts, "py:m.before", "py:m.f", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.before", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.after", "py:m.g", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.after", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.own_value", "py:m.f", EdgeKind::call));
}

TEST(FlowOrder, UnknownOrLibraryValuesDoNotReplaceWhatWasBound) {
  // `model = torch.compile(model)`, `fn = functools.partial(fn, x)`: the library wraps what was
  // bound and calls it, so the earlier binding still reaches the call.
  auto facts = link_one(
      "import functools\n"
      "def f(x): pass\n"
      "def g(): pass\n"
      "def wrapped():\n"
      "    a = f\n"
      "    a = functools.partial(a, 1)\n"
      "    a()\n"
      "def unknown(table):\n"
      "    b = g\n"
      "    b = table.lookup()\n"
      "    b()\n");
  EXPECT_TRUE(has_edge(facts, "py:m.unknown", "py:m.g", EdgeKind::call));
  // functools.partial is a higher-order builtin: its argument is called through it.
  EXPECT_TRUE(has_edge(facts, "py:m.wrapped", "py:m.f", EdgeKind::call));
}

TEST(FlowOrder, ModuleAndClassBodiesAndDecorators) {
  auto facts = link_one(
      "def dec1(fn): return fn\n"
      "def dec2(fn): return fn\n"
      "a = dec1\n"
      "a = dec2\n"
      "@a\n"
      "def func(): pass\n"
      "class Table:\n"
      "    pick = dec1\n"
      "    pick = dec2\n"
      "    chosen = pick(func)\n");
  EXPECT_TRUE(has_edge(facts, "py:m", "py:m.dec2", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m", "py:m.dec1", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.Table", "py:m.dec2", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.Table", "py:m.dec1", EdgeKind::call));
}

TEST(FlowOrder, AGlobalAssignmentInAFunctionIsNotInTheModulesOrder) {
  auto facts = link_one(
      "def f(): pass\n"
      "def g(): pass\n"
      "def install():\n"
      "    global hook\n"
      "    hook = g\n"
      "hook = f\n"
      "install()\n"
      "hook()\n");  // g: install() ran after `hook = f`
  EXPECT_TRUE(has_edge(facts, "py:m", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m", "py:m.g", EdgeKind::call));
}

TEST(FlowOrder, ComprehensionTargetsAndAnnotationsBindNothingInTheScope) {
  auto facts = link_one(
      "def f(): pass\n"
      "def g(): pass\n"
      "def run(fs):\n"
      "    x = f\n"
      "    ys = [x() for x in fs]\n"
      "    x()\n"  // f: the comprehension's x does not leak
      "def annotated():\n"
      "    y = g\n"
      "    y: int\n"
      "    y()\n");
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.annotated", "py:m.g", EdgeKind::call));
}

TEST(FlowOrder, ADecoratedNameKeepsItsDefinitionBesideTheWrapper) {
  // The wrapper is one function for every use of the decorator, so "wrapper calls fn" reaches
  // every decorated function at once (or, past the resolver's value limit, only some of them):
  // on DeepSpeed every @instrument_w_nvtx hook would hang off one wrapped_fn. The decorated name
  // keeps a direct edge to its own definition: a reference, since the call runs the wrapper.
  auto facts = link_one(
      "def dec(fn):\n"
      "    def inner():\n"
      "        fn()\n"
      "    return inner\n"
      "@dec\n"
      "def func(): pass\n"
      "def caller():\n"
      "    func()\n");
  EXPECT_TRUE(has_edge(facts, "py:m.caller", "py:m.dec.inner", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.caller", "py:m.func", EdgeKind::reference));
  EXPECT_FALSE(has_edge(facts, "py:m.caller", "py:m.func", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.dec.inner", "py:m.func", EdgeKind::call));
}

TEST(FlowOrder, ADecoratedNameKeepsItsCallWhereTheDecoratorsMayReturnTheFunction) {
  // Stacked decorators, a decorator returning its argument, one returning a class instance or a
  // library's value: the call may run the definition itself.
  auto facts = link_one(
      "import functools\n"
      "def dec1(f):\n"
      "    def inner(): return f()\n"
      "    return inner\n"
      "def dec2(f):\n"
      "    def inner(): return f()\n"
      "    return inner\n"
      "def register(f):\n"
      "    return f\n"
      "class Wrapper:\n"
      "    def __init__(self, f): self.f = f\n"
      "    def __call__(self): return self.f()\n"
      "def boxed(f):\n"
      "    return Wrapper(f)\n"
      "@dec1\n"
      "@dec2\n"
      "def stacked(): pass\n"
      "@register\n"
      "def registered(): pass\n"
      "@boxed\n"
      "def box(): pass\n"
      "@functools.lru_cache\n"
      "def cached(): pass\n"
      "def caller():\n"
      "    stacked()\n"
      "    registered()\n"
      "    box()\n"
      "    cached()\n");
  for (const char* f : {"py:m.stacked", "py:m.registered", "py:m.box", "py:m.cached"})
    EXPECT_TRUE(has_edge(facts, "py:m.caller", f, EdgeKind::call)) << f;
  EXPECT_TRUE(has_edge(facts, "py:m.caller", "py:m.dec1.inner", EdgeKind::call));
}

}  // namespace
}  // namespace fastci::frontend::python
