#include "frontend/python/builtins.h"

#include <gtest/gtest.h>

namespace fastci::frontend::python {
namespace {

TEST(Builtins, KnowsTheBuiltinsAndWhichReturnLibraryValues) {
  EXPECT_TRUE(is_builtin("open"));
  EXPECT_TRUE(is_builtin("getattr"));
  EXPECT_TRUE(is_builtin("__import__"));
  EXPECT_FALSE(is_builtin("torch"));
  EXPECT_TRUE(returns_library_value("open"));
  EXPECT_TRUE(returns_library_value("str"));
  // These hand back what they were given, which may be a repository object.
  EXPECT_FALSE(returns_library_value("getattr"));
  EXPECT_FALSE(returns_library_value("next"));
  EXPECT_FALSE(returns_library_value("sorted"));
  EXPECT_FALSE(returns_library_value("type"));
}

}  // namespace
}  // namespace fastci::frontend::python
