#include "frontend/python/link_modules.h"

#include <gtest/gtest.h>

#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

class LinkingFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto root = testing::source_root();
    facts_ = new RepositoryFacts(link_modules(testing::parse_folder(root, root / "tests/fixtures/python/linking")));
  }
  static void TearDownTestSuite() { delete facts_; }
  static RepositoryFacts* facts_;
  const std::string p = "py:tests.fixtures.python.linking.";
};
RepositoryFacts* LinkingFixture::facts_ = nullptr;

TEST_F(LinkingFixture, ImportedNamesThroughReExportsAndStarImports) {
  // app imports Engine and helper_fn from the package: __init__ re-exports them from core and
  // (star) util.
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", p + "pkg.core.Engine.__init__", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", p + "pkg.core.Engine", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", p + "pkg.util.helper_fn", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", p + "pkg.util.Helper.work", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", p + "pkg.sub.mod.use", EdgeKind::call));
}

TEST_F(LinkingFixture, ModuleAttributeChainsAndAliases) {
  // import pkg.core; pkg.core.Base.create()  and  import pkg.core as pc; pc.FastEngine(1).step()
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", p + "pkg.core.Base.create", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", p + "pkg.core.FastEngine.step", EdgeKind::call));
  // A constructor without its own __init__ reaches the inherited one.
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", p + "pkg.core.Engine.__init__", EdgeKind::call));
  // engine = Engine(8); engine.step(): an exact type, no virtual edges to subclasses. Engine.step is
  // decorated with @traced: the call runs traced's wrapper, the definition is kept as a reference.
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", p + "pkg.core.traced.wrapper", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", p + "pkg.core.Engine.step", EdgeKind::reference));
  EXPECT_FALSE(has_edge(*facts_, p + "app.main", p + "pkg.core.Engine.step", EdgeKind::call));
}

TEST_F(LinkingFixture, SelfSuperAndOverriders) {
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Base.run", p + "pkg.core.Base.step", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Base.run", p + "pkg.core.Engine.step", EdgeKind::virtual_call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Base.run", p + "pkg.core.FastEngine.step", EdgeKind::virtual_call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.__init__", p + "pkg.core.Base.__init__", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.FastEngine.step", p + "pkg.core.Engine.step", EdgeKind::reference));
  // cls() in a classmethod constructs the class.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Base.create", p + "pkg.core.Base.__init__", EdgeKind::call));
  // self.helper = Helper() in __init__, then self.helper.work()
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.step", p + "pkg.util.Helper.work", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Base.step", p + "pkg.core.Engine.step", EdgeKind::override_));
}

TEST_F(LinkingFixture, APackageModuleNamedLikeALibraryIsNotThatLibrary) {
  // pkg/torch.py exists; `import torch` in pkg/core.py and in pkg/torch.py itself is the library.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.step", "?torch.cat", EdgeKind::call));
  EXPECT_FALSE(has_edge(*facts_, p + "pkg.core.Engine.step", p + "pkg.torch.cat", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.torch.cat", "?torch.cat", EdgeKind::call));
  EXPECT_FALSE(has_edge(*facts_, p + "pkg.core", p + "pkg.torch", EdgeKind::import));
}

TEST_F(LinkingFixture, ExternalAndUnresolvedBecomePlaceholders) {
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.step", "?numpy.zeros", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.step", "?torch.cat", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", "?unknown_thing.go", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "app.main", "?print", EdgeKind::call));
}

TEST_F(LinkingFixture, DecoratorsCallbacksNestedAndLambdas) {
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine", p + "pkg.core.traced", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.step", p + "pkg.core.traced", EdgeKind::decorates));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.schedule", p + "pkg.util.helper_fn", EdgeKind::reference));
  // apply = lambda value: inner(); apply(1): schedule calls the lambda, which calls inner; the
  // lambda is referenced where it is made. inner calls helper_fn.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.schedule", p + "pkg.core.Engine.schedule.<lambda1>", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.schedule", p + "pkg.core.Engine.schedule.<lambda1>", EdgeKind::reference));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.schedule.<lambda1>", p + "pkg.core.Engine.schedule.inner", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine.schedule.inner", p + "pkg.util.helper_fn", EdgeKind::call));
}

TEST_F(LinkingFixture, RelativeImportsAndModuleEdges) {
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.sub.mod.use", p + "pkg.core.Base.run", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.sub.mod.use", p + "pkg.util.Helper.work", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.sub.mod.use", p + "pkg.sub.leaf.leaf_fn", EdgeKind::call));
  // core.make = Engine: an alias of a class is a constructor call.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.sub.mod.use", p + "pkg.core.Engine.__init__", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.sub.mod", p + "pkg.core", EdgeKind::import));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.sub.mod", p + "pkg", EdgeKind::import));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.sub.mod", p + "pkg.sub.leaf", EdgeKind::import));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core", p + "pkg.core.Engine", EdgeKind::contains));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Engine", p + "pkg.core.Engine.step", EdgeKind::contains));
  EXPECT_FALSE(has_edge(*facts_, p + "pkg.core", p + "pkg.core.Engine.step", EdgeKind::contains));
}

TEST_F(LinkingFixture, ConditionalValuesAndCallableModules) {
  // self.engine = FastEngine(1) if fast else Engine(1): both arms are possible receivers.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Block.forward", p + "pkg.core.FastEngine.step", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Block.forward", p + "pkg.core.Engine.step", EdgeKind::reference));
  // self.fallback = None or Helper()
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Block.forward", p + "pkg.util.Helper.work", EdgeKind::call));
  // block(x) on an instance of a torch.nn.Module subclass runs its forward.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.run_block", p + "pkg.core.Block.forward", EdgeKind::call));
}

TEST_F(LinkingFixture, AnnotationsCastsAndIdentityWrappers) {
  // engine: Optional["Engine"]: Engine.step and, virtually, its overriders.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.use_engine", p + "pkg.core.Engine.step", EdgeKind::reference));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.use_engine", p + "pkg.core.FastEngine.step", EdgeKind::virtual_call));
  // other: Base | None
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.use_engine", p + "pkg.core.Base.run", EdgeKind::call));
  // self.block = cast(torch.nn.Module, Block(True)); unwrap(self.block)(1)
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Wrapped.go", p + "pkg.core.Block.forward", EdgeKind::call));
  // A dataclass field's default class, called through an annotated parameter.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.build", p + "pkg.core.Engine.__init__", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.build", p + "pkg.core.Engine.schedule", EdgeKind::call));
  // Block(False).cuda().to(...) is still the Block.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.moved_block", p + "pkg.core.Block.forward", EdgeKind::call));
  // An unannotated parameter stays unknown: no guessed edges.
  EXPECT_FALSE(has_edge(*facts_, p + "pkg.core.unwrap", p + "pkg.core.Block.forward", EdgeKind::call));
}

TEST_F(LinkingFixture, ParametersReceiveWhatCallSitesPass) {
  // apply_callback(handlers["fast"]): the container's elements flow into the parameter.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.apply_callback", p + "pkg.core.FastEngine", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.apply_callback", p + "pkg.util.helper_fn", EdgeKind::call));
  // run = apply_callback; run(callback=Engine(3).schedule): through an alias, by keyword.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.apply_callback", p + "pkg.core.Engine.schedule", EdgeKind::call));
  // raise Boom constructs it.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.run_callbacks", p + "pkg.core.Boom.__init__", EdgeKind::call));
  // unwrap(module) returns its argument, per call site: Wrapped.go's block is not moved_block's.
  EXPECT_FALSE(has_edge(*facts_, p + "pkg.core.unwrap", p + "pkg.core.Block.forward", EdgeKind::call));
}

TEST_F(LinkingFixture, DecoratorsIterationAndDefaults) {
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.call_decorated", p + "pkg.core.logged.wrapper", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.call_decorated", p + "pkg.core.decorated_step", EdgeKind::reference));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.logged.wrapper", p + "pkg.core.decorated_step", EdgeKind::call));
  // for step in Countdown(): __iter__, __next__, and what __next__ returns is called.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.iterate", p + "pkg.core.Countdown.__iter__", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.iterate", p + "pkg.core.Countdown.__next__", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.iterate", p + "pkg.util.helper_fn", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.with_default", p + "pkg.util.helper_fn", EdgeKind::call));
}

TEST_F(LinkingFixture, ClassAttributesAssignedThroughTheClassName) {
  // SharedOp.kernels = Helper() in __init__; self.fn = self.kernels.work; self.fn() in forward.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.SharedOp.forward", p + "pkg.util.Helper.work", EdgeKind::call));
}

TEST_F(LinkingFixture, AutogradFunctionApplyRunsForward) {
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.scale_through_autograd", p + "pkg.core.ScaleFunction.forward", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.scale_through_autograd", p + "pkg.core.ScaleFunction.backward", EdgeKind::call));
}

TEST_F(LinkingFixture, FixtureValuesAndGlobalAssignments) {
  EXPECT_TRUE(has_edge(*facts_, p + "test_fixture_values.test_uses_fixture_value", p + "pkg.util.Helper.work",
                       EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "test_fixture_values.use_shared", p + "pkg.util.Helper.work", EdgeKind::call));
  // A fixture method of the test's class, or of a class it inherits from (the annotation, a base
  // class, does not hide the value returned).
  for (const char* test : {"TestClassFixtures.test_calls_the_class_fixture",
                           "TestInheritedClassFixtures.test_calls_the_inherited_fixture"})
    EXPECT_TRUE(has_edge(*facts_, p + "test_fixture_values." + test, p + "pkg.core.Applier.__call__", EdgeKind::call))
        << test;
}

TEST_F(LinkingFixture, CallableInstancesReceiveTheirArguments) {
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.apply_helper", p + "pkg.core.Applier.__call__", EdgeKind::call));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.core.Applier.__call__", p + "pkg.util.helper_fn", EdgeKind::call));
}

TEST_F(LinkingFixture, UnresolvedCallsMayReachEveryMethodOfTheirName) {
  // handle.wait() on an untyped parameter: a name match to every method called wait.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.work.sync", "?.wait", EdgeKind::name_match));
  EXPECT_TRUE(has_edge(*facts_, "?.wait", p + "pkg.work.Work.wait", EdgeKind::name_match));
  EXPECT_FALSE(has_edge(*facts_, p + "pkg.work.sync", p + "pkg.work.Work.wait", EdgeKind::call));
  // An attribute read on an untyped value matches class attributes of that name.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.work.sync", "?.retries", EdgeKind::name_match));
  EXPECT_TRUE(has_edge(*facts_, "?.retries", p + "pkg.work.Config.retries=", EdgeKind::name_match));
  // A receiver the resolver types (a repository class, a library value) is not guessed about.
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.work.sync_known", p + "pkg.work.Work.wait", EdgeKind::call));
  EXPECT_FALSE(has_edge(*facts_, p + "pkg.work.sync_known", "?.wait", EdgeKind::name_match));
  EXPECT_FALSE(has_edge(*facts_, p + "pkg.work.sync_external", "?.wait", EdgeKind::name_match));
  // A builtin's file or string is a library value.
  EXPECT_FALSE(has_edge(*facts_, p + "pkg.work.load", "?.read", EdgeKind::name_match));
  // Containers hold what was appended or inserted.
  EXPECT_FALSE(has_edge(*facts_, p + "pkg.work.sync_all", "?.wait", EdgeKind::name_match));
  EXPECT_TRUE(has_edge(*facts_, p + "pkg.work.sync_all", p + "pkg.work.Work.wait", EdgeKind::call));
}

TEST_F(LinkingFixture, NoCallIsDropped) {
  // Every call reference becomes at least one edge.
  auto root = testing::source_root();
  auto records = testing::parse_folder(root, root / "tests/fixtures/python/linking");
  for (const auto& record : records) {
    for (const auto& reference : record.references) {
      if (reference.kind != EdgeKind::call || !reference.keep_unresolved) continue;
      std::string from = "py:" + record.scopes[reference.scope].qualified_name;
      bool found = false;
      for (const auto& file : facts_->files)
        for (const auto& e : file.edges)
          found |= e.from == from && e.line == reference.line && (e.kind == EdgeKind::call || e.kind == EdgeKind::virtual_call);
      EXPECT_TRUE(found) << record.facts.path << ":" << reference.line << " " << reference.text;
    }
  }
}

}  // namespace
}  // namespace fastci::frontend::python
