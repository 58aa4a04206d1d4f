#pragma once
/// A small integer expression language for constraints written as data (see data/constraints.toml).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace fastci::planner::workload {

/// What names in an expression resolve to.
class Environment {
 public:
  virtual ~Environment() = default;
  /// Integer value of a name (knob, orig.<knob>, test.<fact>, derived), or nothing.
  virtual std::optional<long long> value(const std::string& name) const = 0;
  /// Length of a list-valued knob (a MoE layer pattern), or nothing when it is not a list.
  virtual std::optional<long long> list_length(const std::string& name) const = 0;
};

/// A parsed expression.
class Expression {
 public:
  struct Node;
  Expression() = default;
  explicit Expression(std::shared_ptr<const Node> root, std::string text);
  /// The names it reads (for reports), in first-use order.
  std::vector<std::string> names() const;
  const std::string& text() const { return text_; }
  const Node* root() const { return root_.get(); }

 private:
  std::shared_ptr<const Node> root_;
  std::string text_;
};

/// Result of evaluating an expression.
struct Evaluation {
  std::optional<long long> value;  ///< nothing when a needed name had no value
  std::string missing;             ///< the first name without a value
  std::string error;               ///< division by zero and the like
};

/// Parses `text`; errors say what was expected at which column.
util::Result<Expression> parse_expression(const std::string& text);
/// Evaluates with short-circuit && || and ?:, so unneeded missing names do not matter.
Evaluation evaluate(const Expression& expression, const Environment& environment);

}  // namespace fastci::planner::workload
