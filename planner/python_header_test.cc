#include "planner/python_header.h"

#include <gtest/gtest.h>

namespace fastci::planner {
namespace {

TEST(PythonHeader, AMultiLineSignatureEndsAtItsColon) {
  // DeepSpeed's FP16_Optimizer.__init__ has this shape: the defaults run at import.
  const char* source =
      "class FP16_Optimizer(DeepSpeedOptimizer):\n"  // 1
      "\n"                                            // 2
      "    def __init__(self,\n"                      // 3
      "                 init_optimizer,\n"            // 4
      "                 static_loss_scale=1.0,\n"     // 5
      "                 dynamic_loss_args=None):\n"   // 6
      "        self.fused_adam_legacy = False\n";     // 7
  EXPECT_EQ(python_header_end(source, 3), 6);
  EXPECT_EQ(python_header_end(source, 1), 1);
}

TEST(PythonHeader, ColonsInsideBracketsStringsAndCommentsDoNotEndIt) {
  const char* source =
      "def f(key=lambda x: x,\n"            // 1
      "      table={'a': 1},  # note: ignored\n"  // 2
      "      sep=':',\n"                     // 3
      "      doc=\"\"\"a: b\"\"\",\n"          // 4
      "      ) -> Dict[str, int]:\n"         // 5
      "    return 1\n";                      // 6
  EXPECT_EQ(python_header_end(source, 1), 5);
}

TEST(PythonHeader, OneLineDefinitionsAndBadInputKeepTheirFirstLine) {
  EXPECT_EQ(python_header_end("def f(): return 1\n", 1), 1);
  EXPECT_EQ(python_header_end("def f(\n", 1), 1);
  EXPECT_EQ(python_header_end("x = 1\n", 5), 5);
}

}  // namespace
}  // namespace fastci::planner
