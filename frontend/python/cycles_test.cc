// Questions that come back to themselves: `f` returns what `g` returns, which may be `f()` again.
// What the resolver answers must not depend on which question happened to be asked first, and an
// answer seen through a cycle is asked for again until it stops growing.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;
using testing::link_one;

const char* kMutualReturns =
    "import random\n"
    "def h(): pass\n"
    "def g():\n"
    "    if random.random() > 0.5:\n"
    "        return f()\n"
    "    return h\n"
    "def f():\n"
    "    return g()\n";

TEST(Cycles, AnAnswerCutShortByACycleIsNotKeptForLaterQuestions) {
  // `first` asks for g's returns, which asks for f's, which asks for g's again: f's answer then lacks
  // h, and `second`, asking later, must not be served that partial answer.
  auto facts = link_one(std::string(kMutualReturns) +
                        "def first():\n"
                        "    return g()()\n"
                        "def second():\n"
                        "    return f()()\n");
  EXPECT_TRUE(has_edge(facts, "py:m.first", "py:m.h", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.second", "py:m.h", EdgeKind::call));
}

TEST(Cycles, TheOrderOfTheQuestionsDoesNotChangeTheAnswers) {
  auto facts = link_one(std::string(kMutualReturns) +
                        "def second():\n"
                        "    return f()()\n"
                        "def first():\n"
                        "    return g()()\n");
  EXPECT_TRUE(has_edge(facts, "py:m.first", "py:m.h", EdgeKind::call));
  EXPECT_TRUE(has_edge(facts, "py:m.second", "py:m.h", EdgeKind::call));
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
