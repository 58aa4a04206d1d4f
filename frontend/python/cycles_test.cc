// Questions that come back to themselves: `f` returns what `g` returns, which may be `f()` again.
// What the resolver answers must not depend on which question happened to be asked first, and an
// answer seen through a cycle is asked for again until it stops growing.
#include <gtest/gtest.h>

#include <string>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;
using testing::link_one;

const std::string kMutualReturns =
    "import random\n"
    "def h(): pass\n"
    "def g():\n"
    "    if random.random() > 0.5:\n"
    "        return f()\n"
    "    return h\n"
    "def f():\n"
    "    return g()\n";

TEST(Cycles, AnAnswerCutShortByACycleIsNotKeptForLaterQuestions) {
  // Linked first, `first` asks for g's returns, which asks for f's, which asks for g's again: f's answer
  // then lacks h, and `second`, asking later, must not be served that partial answer. Either order of
  // the two functions gives both the edge.
  const std::string first = "def first():\n    return g()()\n";
  const std::string second = "def second():\n    return f()()\n";
  for (const auto& callers : {first + second, second + first}) {
    auto facts = link_one(kMutualReturns + callers);
    EXPECT_TRUE(has_edge(facts, "py:m.first", "py:m.h", EdgeKind::call)) << callers;
    EXPECT_TRUE(has_edge(facts, "py:m.second", "py:m.h", EdgeKind::call)) << callers;
  }
}

/// `name0 = start`, `name1 = name0`, ... `name<n> = name<n-1>`: a chain of aliases.
std::string alias_chain(const std::string& name, const std::string& start, int n) {
  std::string out = name + "0 = " + start + "\n";
  for (int i = 1; i <= n; ++i) out += name + std::to_string(i) + " = " + name + std::to_string(i - 1) + "\n";
  return out;
}

TEST(Cycles, AnAnswerTheDepthLimitCutShortIsNotKeptForLaterQuestions) {
  // `deep` reaches c10 at the end of a long chain of other aliases, where the depth limit cuts c10's
  // own chain short; `shallow` asks for c10 first thing. Whichever is linked first, shallow's call
  // reaches target: the cut answer was not kept for it.
  const std::string head = "def target(): pass\n" + alias_chain("c", "target", 10) + alias_chain("d", "c10", 8);
  const std::string deep = "def deep():\n    d8()\n";
  const std::string shallow = "def shallow():\n    c10()\n";
  for (const auto& callers : {deep + shallow, shallow + deep}) {
    auto facts = link_one(head + callers);
    EXPECT_TRUE(has_edge(facts, "py:m.shallow", "py:m.target", EdgeKind::call)) << callers;
  }
}

TEST(Cycles, AValueThatFeedsItselfSettles) {
  // Megatron-LM's ScheduleNode: `self.stream = self.stream()` where the stream given is a function
  // (get_comp_stream) or a library's callable. The library value would grow by "()" on every round of
  // the cycle; a third repeat is the value itself, so the answer settles with the function in it
  // whichever question comes first.
  const std::string head =
      "import torch\n"
      "def get_comp_stream():\n"
      "    return torch.cuda.current_stream()\n"
      "class Node:\n"
      "    def __init__(self, stream):\n"
      "        self.stream = stream\n";
  const std::string use =
      "    def run(self):\n"
      "        self.stream = self.stream()\n"
      "        self.stream.wait_stream()\n";
  const std::string other = "    def peek(self):\n        return self.stream\n";
  const std::string tail = "a = Node(get_comp_stream)\nb = Node(torch.cuda.current_stream)\n";
  for (const auto& body : {use + other, other + use}) {
    auto facts = link_one(head + body + tail);
    EXPECT_TRUE(has_edge(facts, "py:m.Node.run", "py:m.get_comp_stream", EdgeKind::call)) << body;
    for (const auto& file : facts.files)
      for (const auto& e : file.edges) EXPECT_EQ(e.to.find("()()()"), std::string::npos) << e.to;
  }
}

TEST(Cycles, TheHeadOfACycleIsAskedAgainWhileItsAnswerGrows) {
  // make() returns an A, or pick()'s answer, which is an attribute of make()'s answer: A.m is in
  // make's answer only once the A found in a first pass has gone round the cycle once more.
  auto facts = link_one(
      "import random\n"
      "class A:\n"
      "    def m(self): pass\n"
      "def make():\n"
      "    if random.random() > 0.5:\n"
      "        return A()\n"
      "    return pick()\n"
      "def pick():\n"
      "    x = make()\n"
      "    return x.m\n"
      "def run():\n"
      "    return make()()\n");
  EXPECT_TRUE(has_edge(facts, "py:m.run", "py:m.A.m", EdgeKind::call));
}

}  // namespace
}  // namespace fastci::frontend::python
