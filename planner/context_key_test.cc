#include "planner/context_key.h"

#include <gtest/gtest.h>

namespace fastci::planner {
namespace {

TEST(ContextKey, FrameworkFramesAreTheRepositorysOwnNonTestSource) {
  EXPECT_TRUE(is_framework_frame("deepspeed/runtime/utils.py::clip_grad_norm_"));
  EXPECT_TRUE(is_framework_frame("megatron/core/tensor_parallel/random.py::CudaRNGStatesTracker.fork"));
  EXPECT_FALSE(is_framework_frame("tests/unit/common.py::DistributedExec._dist_run"));
  EXPECT_FALSE(is_framework_frame("tests/unit_tests/test_utilities.py::Utils.initialize_model_parallel"));
  EXPECT_FALSE(is_framework_frame("deepspeed/ops/test_helpers.py::f"));  // a test module by its name
  EXPECT_FALSE(is_framework_frame("pkg/conftest.py::fixture"));
  EXPECT_FALSE(is_framework_frame("pkg/thing_test.py::f"));
  EXPECT_FALSE(is_framework_frame("/usr/lib/python3/dist-packages/torch/nn/modules/module.py::Module._call_impl"));
  EXPECT_FALSE(is_framework_frame("venv/lib/python3.11/site-packages/torch/autograd/function.py::Function.apply"));
  EXPECT_FALSE(is_framework_frame("scripts/fastci_pytest/recorder.py::Recorder.start"));
  EXPECT_FALSE(is_framework_frame(""));
}

TEST(ContextKey, TwoTestsReachingTheCodeTheSameWayShareAKey) {
  evidence::ExecutionContext a;
  a.function = "deepspeed/runtime/utils.py::clip_grad_norm_";
  a.callers = {"deepspeed/runtime/engine.py::DeepSpeedEngine.step",
               "tests/unit/runtime/test_utils.py::TestClipGradNorm.test_clipped_val", "tests/unit/common.py::run"};
  a.arguments = "parameters:list;max_norm:float";
  a.arcs = {{1, 2}, {2, 5}};
  evidence::ExecutionContext b = a;
  b.callers = {"deepspeed/runtime/engine.py::DeepSpeedEngine.step",
               "tests/unit/runtime/test_utils.py::TestClipGradNorm.test_gather", "tests/unit/common.py::run"};
  EXPECT_NE(a.key(), b.key());  // the recorded keys differ by the tests' own frames
  EXPECT_EQ(framework_context_key(a), framework_context_key(b));
}

TEST(ContextKey, FrameworkCallersArgumentsAndBranchesStillSeparate) {
  evidence::ExecutionContext a;
  a.callers = {"deepspeed/runtime/engine.py::DeepSpeedEngine.step", "tests/unit/test_x.py::test"};
  a.arguments = "x:tensor[fp32,2,cpu,strided]";
  a.arcs = {{1, 2}};
  auto other_caller = a;
  other_caller.callers[0] = "deepspeed/runtime/zero/stage3.py::DeepSpeedZeroOptimizer_Stage3.step";
  auto other_dtype = a;
  other_dtype.arguments = "x:tensor[bf16,2,cpu,strided]";
  auto other_branch = a;
  other_branch.arcs = {{1, 3}};
  EXPECT_NE(framework_context_key(a), framework_context_key(other_caller));
  EXPECT_NE(framework_context_key(a), framework_context_key(other_dtype));
  EXPECT_NE(framework_context_key(a), framework_context_key(other_branch));
}

}  // namespace
}  // namespace fastci::planner
