#include "planner/workload/expression.h"

#include <map>

#include <gtest/gtest.h>

namespace fastci::planner::workload {
namespace {

class MapEnvironment : public Environment {
 public:
  explicit MapEnvironment(std::map<std::string, long long> values) : values_(std::move(values)) {}
  std::optional<long long> value(const std::string& name) const override {
    auto found = values_.find(name);
    if (found == values_.end()) return std::nullopt;
    return found->second;
  }
  std::optional<long long> list_length(const std::string&) const override { return std::nullopt; }

 private:
  std::map<std::string, long long> values_;
};

std::optional<long long> run(const std::string& text, std::map<std::string, long long> values = {}) {
  auto parsed = parse_expression(text);
  EXPECT_TRUE(parsed.ok()) << text;
  if (!parsed.ok()) return std::nullopt;
  return evaluate(*parsed, MapEnvironment(std::move(values))).value;
}

TEST(Expression, PrecedenceAndArithmetic) {
  EXPECT_EQ(run("2 + 3 * 4"), 14);
  EXPECT_EQ(run("(2 + 3) * 4"), 20);
  EXPECT_EQ(run("17 % 5 == 2"), 1);
  EXPECT_EQ(run("1 <= 2 && 3 >= 4 || 5 != 5"), 0);
  EXPECT_EQ(run("!0 && -3 < 0"), 1);
  EXPECT_EQ(run("world / (tp * pp)", {{"world", 8}, {"tp", 2}, {"pp", 2}}), 2);
  EXPECT_EQ(run("orig.layers - layers", {{"orig.layers", 12}, {"layers", 4}}), 8);
}

TEST(Expression, TernaryAndHas) {
  EXPECT_EQ(run("has(etp) ? etp : tp", {{"tp", 2}}), 2);
  EXPECT_EQ(run("has(etp) ? etp : tp", {{"tp", 2}, {"etp", 1}}), 1);
  EXPECT_EQ(run("cp > 1 ? 2 : 1", {{"cp", 4}}), 2);
}

TEST(Expression, MissingNamesAreUnknownUnlessShortCircuited) {
  EXPECT_FALSE(run("layers % pp == 0", {{"pp", 2}}).has_value());
  EXPECT_EQ(run("has(layers) && layers % pp == 0", {{"pp", 2}}), 0);
  EXPECT_EQ(run("unknown == 1 || 1", {}), 1);
  auto parsed = parse_expression("layers % pp");
  ASSERT_TRUE(parsed.ok());
  Evaluation result = evaluate(*parsed, MapEnvironment({{"pp", 2}}));
  EXPECT_EQ(result.missing, "layers");
  Evaluation divided = evaluate(*parsed, MapEnvironment({{"layers", 2}, {"pp", 0}}));
  EXPECT_FALSE(divided.value.has_value());
  EXPECT_EQ(divided.error, "division by zero");
}

TEST(Expression, ParseErrorsSayWhere) {
  for (const char* bad : {"(1 + 2", "1 +", "has(1)", "foo(x)", "1 ? 2", "a b"}) {
    auto parsed = parse_expression(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_NE(parsed.error().message.find("column"), std::string::npos) << bad;
    }
  }
  EXPECT_EQ(parse_expression("a <= b").value().names(), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace fastci::planner::workload
