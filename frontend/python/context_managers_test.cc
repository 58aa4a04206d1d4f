// `with` statements: entering and leaving a context manager are calls of its class's
// __enter__/__exit__ (__aenter__/__aexit__ under `async with`), and `as` binds what __enter__ returns.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

/// DeepSpeed's zero.GatheredParameters (a class with __enter__/__exit__, re-exported by the
/// package) and Megatron's RNG tracker (a @contextmanager method reached through a getter).
RepositoryFacts link_context_fixture() {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("ds/__init__.py", "from . import zero\n"));
  modules.push_back(parse_module("ds/zero/__init__.py", "from .partition import GatheredParameters\n"));
  modules.push_back(parse_module("ds/zero/partition.py",
                                 "class GatheredParameters:\n"
                                 "    def __init__(self, params, modifier_rank=None):\n"
                                 "        self.params = params\n"
                                 "    def __enter__(self):\n"
                                 "        gather(self.params)\n"
                                 "        return self\n"
                                 "    def __exit__(self, *exc):\n"
                                 "        release(self.params)\n"
                                 "    def owner(self):\n"
                                 "        return 0\n"
                                 "def gather(params):\n"
                                 "    pass\n"
                                 "def release(params):\n"
                                 "    pass\n"));
  modules.push_back(parse_module("mg/random.py",
                                 "import contextlib\n"
                                 "class Tracker:\n"
                                 "    def __init__(self):\n"
                                 "        self.states = {}\n"
                                 "    @contextlib.contextmanager\n"
                                 "    def fork(self, name='model-parallel-rng'):\n"
                                 "        swap_state(name)\n"
                                 "        yield Stream()\n"
                                 "        swap_state(name)\n"
                                 "class Stream:\n"
                                 "    def synchronize(self):\n"
                                 "        pass\n"
                                 "def swap_state(name):\n"
                                 "    pass\n"
                                 "class TETracker(Tracker):\n"
                                 "    pass\n"
                                 "_TRACKER = None\n"
                                 "def initialize_rng_tracker(use_te=False):\n"
                                 "    global _TRACKER\n"
                                 "    if use_te:\n"
                                 "        base_tracker = TETracker\n"
                                 "    else:\n"
                                 "        base_tracker = Tracker\n"
                                 "    _TRACKER = base_tracker()\n"
                                 "def get_cuda_rng_tracker(use_te=False):\n"
                                 "    initialize_rng_tracker(use_te)\n"
                                 "    return _TRACKER\n"
                                 "@contextlib.contextmanager\n"
                                 "def fork_default():\n"
                                 "    with get_cuda_rng_tracker().fork():\n"
                                 "        yield\n"));
  modules.push_back(parse_module("use.py",
                                 "import torch\n"
                                 "import ds\n"
                                 "from contextlib import contextmanager\n"
                                 "@contextmanager\n"
                                 "def timer(name):\n"
                                 "    yield\n"
                                 "def timed():\n"
                                 "    with timer('step'):\n"
                                 "        pass\n"
                                 "from mg.random import get_cuda_rng_tracker\n"
                                 "class AsyncSession:\n"
                                 "    async def __aenter__(self):\n"
                                 "        return Channel()\n"
                                 "    async def __aexit__(self, *exc):\n"
                                 "        pass\n"
                                 "class Channel:\n"
                                 "    def send(self):\n"
                                 "        pass\n"
                                 "def init_weights(params):\n"
                                 "    with ds.zero.GatheredParameters(params, modifier_rank=0) as gathered:\n"
                                 "        gathered.owner()\n"
                                 "def dropout_in_region():\n"
                                 "    with get_cuda_rng_tracker().fork() as stream, torch.no_grad():\n"
                                 "        stream.synchronize()\n"
                                 "async def talk():\n"
                                 "    async with AsyncSession() as channel:\n"
                                 "        channel.send()\n"));
  return link_modules(std::move(modules));
}

TEST(ContextManagers, EnteringAndLeavingCallTheManagersClass) {
  auto facts = link_context_fixture();
  EXPECT_TRUE(has_edge(facts, "py:use.init_weights", "py:ds.zero.partition.GatheredParameters.__init__", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.init_weights", "py:ds.zero.partition.GatheredParameters.__enter__", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.init_weights", "py:ds.zero.partition.GatheredParameters.__exit__", EdgeKind::call));
  // `as gathered`: __enter__ returns self.
  EXPECT_TRUE(has_edge(facts, "py:use.init_weights", "py:ds.zero.partition.GatheredParameters.owner", EdgeKind::call));
  // async with: __aenter__/__aexit__, and the name is what __aenter__ returns.
  EXPECT_TRUE(has_edge(facts, "py:use.talk", "py:use.AsyncSession.__aenter__", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.talk", "py:use.AsyncSession.__aexit__", EdgeKind::call));
  EXPECT_FALSE(has_edge(facts, "py:use.talk", "py:use.AsyncSession.__enter__", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.talk", "py:use.Channel.send", EdgeKind::call));
}

TEST(ContextManagers, ContextmanagerGeneratorsAreCalledAndBindWhatTheyYield) {
  auto facts = link_context_fixture();
  // with get_cuda_rng_tracker().fork(): the generator method itself is the call.
  EXPECT_TRUE(has_edge(facts, "py:use.dropout_in_region", "py:mg.random.get_cuda_rng_tracker", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.dropout_in_region", "py:mg.random.Tracker.fork", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:mg.random.Tracker.fork", "py:mg.random.swap_state", EdgeKind::call));
  // Through the generator function Megatron's tensor-parallel code enters it by, and a plain
  // @contextmanager function: calling it is the edge.
  EXPECT_TRUE(has_edge(facts, "py:mg.random.fork_default", "py:mg.random.Tracker.fork", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:use.timed", "py:use.timer", EdgeKind::call));
  // `as stream` is what fork yields.
  EXPECT_TRUE(has_edge(facts, "py:use.dropout_in_region", "py:mg.random.Stream.synchronize", EdgeKind::call));
  // A library manager's __enter__ is no edge (it would only be a placeholder).
  EXPECT_FALSE(has_edge(facts, "py:use.dropout_in_region", "?torch.no_grad().__enter__", EdgeKind::call));
}

}  // namespace
}  // namespace fastci::frontend::python
