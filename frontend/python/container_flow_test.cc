// What containers hold, followed past their literal: update/extend, slices, containers returned
// by functions or imported from other modules, and stores into a module's container from a function.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

TEST(ContainerFlow, ElementsFollowUpdatesSlicesReturnsImportsAndGlobalStores) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("registry.py",
                                 "def fwd(): pass\n"
                                 "def bwd(): pass\n"
                                 "def late(): pass\n"
                                 "HANDLERS = {}\n"
                                 "def register(name='fwd'):\n"
                                 "    HANDLERS[name] = fwd\n"
                                 "def register_local():\n"
                                 "    table = {}\n"
                                 "    table['x'] = bwd\n"
                                 "    return table\n"));
  modules.push_back(parse_module("use.py",
                                 "from registry import HANDLERS, register_local, fwd, bwd, late\n"
                                 "def build():\n"
                                 "    ops = {'f': fwd}\n"
                                 "    return ops\n"
                                 "def dispatch():\n"
                                 "    HANDLERS['fwd']()\n"
                                 "def from_return():\n"
                                 "    ops = build()\n"
                                 "    ops['f']()\n"
                                 "    register_local()['x']\n"
                                 "    local = register_local()\n"
                                 "    local['x']()\n"
                                 "def updated():\n"
                                 "    ops = {'f': fwd}\n"
                                 "    ops.update({'b': bwd})\n"
                                 "    seq = [fwd]\n"
                                 "    seq.extend([late])\n"
                                 "    ops['b']()\n"
                                 "    seq[1]()\n"
                                 "def looped():\n"
                                 "    for op in build():\n"
                                 "        pass\n"
                                 "    ops = build()\n"
                                 "    for op in ops:\n"
                                 "        op()\n"
                                 "def sliced():\n"
                                 "    seq = [fwd, bwd, late]\n"
                                 "    tail = seq[1:]\n"
                                 "    tail[0]()\n"));
  auto facts = link_modules(std::move(modules));
  // HANDLERS[name] = fwd inside register stores into the module's dict; use.py imports it.
  EXPECT_TRUE(has_edge(facts, "py:use.dispatch", "py:registry.fwd", EdgeKind::call));
  // A container a function returns by name.
  EXPECT_TRUE(has_edge(facts, "py:use.from_return", "py:registry.fwd", EdgeKind::call));
  // ... and one filled by a subscript store in a function where it is local (not hoisted).
  EXPECT_TRUE(has_edge(facts, "py:use.from_return", "py:registry.bwd", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.updated", "py:registry.bwd", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.updated", "py:registry.late", EdgeKind::call));
  // Iterating a name that holds a returned container.
  EXPECT_TRUE(has_edge(facts, "py:use.looped", "py:registry.fwd", EdgeKind::call));
  // A slice holds (some of) the elements; index-insensitive, so all of them.
  EXPECT_TRUE(has_edge(facts, "py:use.sliced", "py:registry.bwd", EdgeKind::call));
}

TEST(ContainerFlow, LoopsOverEnumerateZipItemsAndValuesBindTheElements) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("m.py",
                                 "def f(): pass\n"
                                 "def g(): pass\n"
                                 "def h(): pass\n"
                                 "HOOKS = {'f': f, 'g': g}\n"
                                 "def by_index():\n"
                                 "    steps = [f]\n"
                                 "    for i, fn in enumerate(steps):\n"
                                 "        fn()\n"
                                 "def pairs():\n"
                                 "    names = ['a']\n"
                                 "    fns = [h]\n"
                                 "    for name, fn in zip(names, fns):\n"
                                 "        fn()\n"
                                 "def items():\n"
                                 "    for key, hook in HOOKS.items():\n"
                                 "        hook()\n"
                                 "def values():\n"
                                 "    for hook in HOOKS.values():\n"
                                 "        hook()\n"));
  auto facts = link_modules(std::move(modules));
  EXPECT_TRUE(has_edge(facts, "py:m.by_index", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.pairs", "py:m.h", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.items", "py:m.f", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.items", "py:m.g", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.values", "py:m.g", EdgeKind::call));
}

TEST(ContainerFlow, StoresIntoALocalContainerStayLocal) {
  auto record = parse_module("m.py",
                             "def f(): pass\n"
                             "def local():\n"
                             "    d = {}\n"
                             "    d['k'] = f\n"
                             "def param(d):\n"
                             "    d['k'] = f\n"
                             "def module_level():\n"
                             "    D['k'] = f\n");
  bool module_has_D = false, module_has_d = false;
  for (const auto& b : record.scopes[0].bindings) {
    module_has_D |= b.name == "D[]";
    module_has_d |= b.name == "d[]";
  }
  EXPECT_TRUE(module_has_D);
  EXPECT_FALSE(module_has_d);
}

TEST(ContainerFlow, ElementReadsThroughSubscriptsGetPopAndOtherModulesContainers) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("reg.py",
                                 "def fwd(): pass\n"
                                 "def bwd(): pass\n"
                                 "def late(): pass\n"
                                 "def kw(): pass\n"
                                 "TABLE = {'f': fwd}\n"
                                 "OTHER = {'b': bwd}\n"
                                 "def element_then_call():\n"
                                 "    x = TABLE['f']\n"
                                 "    x()\n"
                                 "def update_by_name():\n"
                                 "    d = {}\n"
                                 "    d.update(OTHER)\n"
                                 "    d['b']()\n"
                                 "def update_by_keyword():\n"
                                 "    d = {}\n"
                                 "    d.update(k=kw)\n"
                                 "    d['k']()\n"
                                 "def get_then_call():\n"
                                 "    g = TABLE.get('f')\n"
                                 "    g()\n"
                                 "def set_default():\n"
                                 "    TABLE.setdefault('z', late)\n"));
  modules.push_back(parse_module("use.py",
                                 "import reg\n"
                                 "def module_element():\n"
                                 "    reg.OTHER['b']()\n"
                                 "def built_by_dict():\n"
                                 "    d = dict(a=reg.fwd)\n"
                                 "    d['a']()\n"
                                 "def popped():\n"
                                 "    reg.OTHER.pop('b')()\n"
                                 "def module_values():\n"
                                 "    for v in reg.OTHER.values():\n"
                                 "        v()\n"
                                 "class K:\n"
                                 "    HOOKS = {'a': reg.kw}\n"
                                 "    def via_class(self):\n"
                                 "        K.HOOKS['a']()\n"
                                 "class Registry:\n"
                                 "    def get(self, name):\n"
                                 "        return reg.late\n"
                                 "def repository_get(r: Registry):\n"
                                 "    r = Registry()\n"
                                 "    r.get('x')()\n"));
  auto facts = link_modules(std::move(modules));
  EXPECT_TRUE(has_edge(facts, "py:reg.element_then_call", "py:reg.fwd", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:reg.update_by_name", "py:reg.bwd", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:reg.update_by_keyword", "py:reg.kw", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:reg.get_then_call", "py:reg.fwd", EdgeKind::call));
  // setdefault stores into the module's TABLE, which x = TABLE['f'] then reads.
  EXPECT_TRUE(has_edge(facts, "py:reg.element_then_call", "py:reg.late", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.module_element", "py:reg.bwd", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.built_by_dict", "py:reg.fwd", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.popped", "py:reg.bwd", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.module_values", "py:reg.bwd", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.K.via_class", "py:reg.kw", EdgeKind::call));
  // A repository class's own get() still decides what r.get(...) returns.
  EXPECT_TRUE(has_edge(facts, "py:use.repository_get", "py:reg.late", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:use.module_element", "py:reg.fwd", EdgeKind::call));
}

TEST(ContainerFlow, ContainersHeldByInstanceAttributes) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("m.py",
                                 "def fwd(): pass\n"
                                 "def late(): pass\n"
                                 "def kw(): pass\n"
                                 "class Hooks:\n"
                                 "    def __init__(self):\n"
                                 "        self.table = {'a': fwd}\n"
                                 "        self.more = []\n"
                                 "        self.named = {}\n"
                                 "    def register(self):\n"
                                 "        self.more.append(late)\n"
                                 "        self.named['x'] = kw\n"
                                 "    def fire_table(self):\n"
                                 "        self.table['a']()\n"
                                 "    def fire_more(self):\n"
                                 "        for h in self.more:\n"
                                 "            h()\n"
                                 "    def fire_named(self):\n"
                                 "        self.named['x']()\n"
                                 "class Work:\n"
                                 "    def wait(self): pass\n"
                                 "class Queue:\n"
                                 "    def __init__(self):\n"
                                 "        self.pending = [Work()]\n"
                                 "    def drain(self):\n"
                                 "        for w in self.pending:\n"
                                 "            w.wait()\n"
                                 "    def local(self):\n"
                                 "        ws = [Work()]\n"
                                 "        ws[0].wait()\n"));
  auto facts = link_modules(std::move(modules));
  // An instance attribute's container may hold what other code stored: the resolved element and,
  // beside it, every method of the name; a local container's stores are all in view.
  EXPECT_TRUE(has_edge(facts, "py:m.Queue.drain", "py:m.Work.wait", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.Queue.drain", "?.wait", EdgeKind::name_match));
  EXPECT_TRUE(has_edge(facts, "py:m.Queue.local", "py:m.Work.wait", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.Queue.local", "?.wait", EdgeKind::name_match));
  EXPECT_TRUE(has_edge(facts, "py:m.Hooks.fire_table", "py:m.fwd", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.Hooks.fire_more", "py:m.late", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.Hooks.fire_named", "py:m.kw", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:m.Hooks.fire_table", "py:m.kw", EdgeKind::call));
}

}  // namespace
}  // namespace fastci::frontend::python
