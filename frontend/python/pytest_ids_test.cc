#include "frontend/python/pytest_ids.h"

#include <gtest/gtest.h>

namespace fastci::frontend::python {
namespace {

TEST(PythonFloatRepr, MatchesPythonRepr) {
  EXPECT_EQ(python_float_repr("1e-5"), "1e-05");
  EXPECT_EQ(python_float_repr("1e20"), "1e+20");
  EXPECT_EQ(python_float_repr("3."), "3.0");
  EXPECT_EQ(python_float_repr("2.50"), "2.5");
  EXPECT_EQ(python_float_repr("0.0001"), "0.0001");
  EXPECT_EQ(python_float_repr("1_000.5"), "1000.5");
  EXPECT_EQ(python_float_repr("1e16"), "1e+16");
  EXPECT_EQ(python_float_repr("123456789012345.0"), "123456789012345.0");
  EXPECT_EQ(python_float_repr("0.1"), "0.1");
  EXPECT_EQ(python_float_repr("1.5e-7"), "1.5e-07");
  EXPECT_FALSE(python_float_repr("1.2.3").has_value());
}

TEST(PythonIntStr, NormalisesLiterals) {
  EXPECT_EQ(python_int_str("0x10"), "16");
  EXPECT_EQ(python_int_str("1_000"), "1000");
  EXPECT_EQ(python_int_str("0"), "0");
  EXPECT_EQ(python_int_str("0b101"), "5");
  EXPECT_EQ(python_int_str("123456789012345678901234567890"), "123456789012345678901234567890");
}

TEST(StringLiteral, DecodesEscapesAndPrefixes) {
  EXPECT_EQ(string_literal_value("'a\\nb'"), "a\nb");
  EXPECT_EQ(string_literal_value("r'a\\nb'"), "a\\nb");
  EXPECT_EQ(string_literal_value("\"\"\"x\"\"\""), "x");
  EXPECT_EQ(string_literal_value("b'\\xff'"), std::string("\xff"));
  EXPECT_EQ(string_literal_value("'\\u00e9'"), "\xc3\xa9");
  EXPECT_FALSE(string_literal_value("f'{x}'").has_value());
  EXPECT_TRUE(is_bytes_literal("b'x'"));
  EXPECT_FALSE(is_bytes_literal("'b'"));
}

TEST(AsciiEscaped, FollowsPytest) {
  EXPECT_EQ(pytest_ascii_escaped("\xc3\xa9\n"), "\\xe9\\n");
  EXPECT_EQ(pytest_ascii_escaped("a\\b"), "a\\\\b");
  EXPECT_EQ(pytest_ascii_escaped("\xe4\xb8\xad"), "\\u4e2d");
  EXPECT_EQ(pytest_ascii_escaped_bytes("x\xffy"), "x\\xffy");
}

TEST(UniqueIds, SuffixesDuplicatesLikePytest) {
  EXPECT_EQ(make_unique_ids({"1", "1", "1", "a", "a", "", ""}),
            (std::vector<std::string>{"1_0", "1_1", "1_2", "a0", "a1", "0", "1"}));
  EXPECT_EQ(make_unique_ids({"x", "y"}), (std::vector<std::string>{"x", "y"}));
}

}  // namespace
}  // namespace fastci::frontend::python
