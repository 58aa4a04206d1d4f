#include "planner/workload/expression.h"

#include <cctype>
#include <functional>

namespace fastci::planner::workload {

struct Expression::Node {
  enum class Kind { number, name, call, unary, binary, ternary } kind = Kind::number;
  long long number = 0;
  std::string name;  ///< variable name, function name (call), or operator
  std::vector<std::shared_ptr<const Node>> children;
};

namespace {

using Node = Expression::Node;
using NodePtr = std::shared_ptr<const Node>;

/// Recursive-descent parser; precedence from low to high: ?: || && ==/!= relational +- */%  unary.
class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  util::Result<NodePtr> parse() {
    NodePtr node = ternary();
    skip_space();
    if (!error_.empty()) return util::Error{error_};
    if (position_ != text_.size()) return fail_result("unexpected '" + text_.substr(position_, 1) + "'");
    return node;
  }

 private:
  util::Error fail_result(const std::string& message) {
    return util::Error{"in expression '" + text_ + "' at column " + std::to_string(position_ + 1) + ": " + message};
  }
  NodePtr fail(const std::string& message) {
    if (error_.empty()) error_ = fail_result(message).message;
    return std::make_shared<Node>();
  }
  void skip_space() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) ++position_;
  }
  bool accept(const std::string& token) {
    skip_space();
    if (text_.compare(position_, token.size(), token) != 0) return false;
    // "=" must not swallow the first half of "==", "<" not "<=", "!" not "!=".
    if ((token == "<" || token == ">" || token == "!") && position_ + 1 < text_.size() &&
        text_[position_ + 1] == '=')
      return false;
    position_ += token.size();
    return true;
  }
  static NodePtr make(Node::Kind kind, std::string name, std::vector<NodePtr> children) {
    auto node = std::make_shared<Node>();
    node->kind = kind;
    node->name = std::move(name);
    node->children = std::move(children);
    return node;
  }

  NodePtr ternary() {
    NodePtr condition = binary_level(0);
    if (!accept("?")) return condition;
    NodePtr yes = ternary();
    if (!accept(":")) return fail("expected ':'");
    NodePtr no = ternary();
    return make(Node::Kind::ternary, "?", {condition, yes, no});
  }

  NodePtr binary_level(size_t level) {
    static const std::vector<std::vector<std::string>> kLevels = {
        {"||"}, {"&&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == kLevels.size()) return unary();
    NodePtr left = binary_level(level + 1);
    for (;;) {
      std::string matched;
      for (const std::string& op : kLevels[level])
        if (accept(op)) {
          matched = op;
          break;
        }
      if (matched.empty()) return left;
      NodePtr right = binary_level(level + 1);
      left = make(Node::Kind::binary, matched, {left, right});
    }
  }

  NodePtr unary() {
    if (accept("!")) return make(Node::Kind::unary, "!", {unary()});
    if (accept("-")) return make(Node::Kind::unary, "-", {unary()});
    return primary();
  }

  NodePtr primary() {
    skip_space();
    if (accept("(")) {
      NodePtr inner = ternary();
      if (!accept(")")) return fail("expected ')'");
      return inner;
    }
    if (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_]))) {
      long long value = 0;
      while (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_])))
        value = value * 10 + (text_[position_++] - '0');
      auto node = std::make_shared<Node>();
      node->number = value;
      return node;
    }
    std::string name = identifier();
    if (name.empty()) return fail("expected a number, a name or '('");
    if (name == "true" || name == "false") {
      auto node = std::make_shared<Node>();
      node->number = name == "true" ? 1 : 0;
      return node;
    }
    if (accept("(")) {
      if (name != "has" && name != "is_list" && name != "list_length")
        return fail("unknown function '" + name + "' (has, is_list, list_length)");
      std::string argument = identifier();
      if (argument.empty()) return fail("expected a name as the argument of " + name + "()");
      if (!accept(")")) return fail("expected ')'");
      auto inner = std::make_shared<Node>();
      inner->kind = Node::Kind::name;
      inner->name = argument;
      return make(Node::Kind::call, name, {inner});
    }
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::name;
    node->name = name;
    return node;
  }

  std::string identifier() {
    skip_space();
    size_t start = position_;
    while (position_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_' ||
            text_[position_] == '.'))
      ++position_;
    if (start == position_ || std::isdigit(static_cast<unsigned char>(text_[start]))) {
      position_ = start;
      return {};
    }
    return text_.substr(start, position_ - start);
  }

  const std::string& text_;
  size_t position_ = 0;
  std::string error_;
};

class Evaluator {
 public:
  explicit Evaluator(const Environment& environment) : environment_(environment) {}

  std::optional<long long> run(const Node& node) {
    switch (node.kind) {
      case Node::Kind::number: return node.number;
      case Node::Kind::name: return lookup(node.name);
      case Node::Kind::call: return call(node);
      case Node::Kind::unary: {
        auto value = run(*node.children[0]);
        if (!value) return std::nullopt;
        return node.name == "!" ? static_cast<long long>(*value == 0) : -*value;
      }
      case Node::Kind::ternary: {
        auto condition = run(*node.children[0]);
        if (!condition) return std::nullopt;
        return run(*node.children[*condition != 0 ? 1 : 2]);
      }
      case Node::Kind::binary: return binary(node);
    }
    return std::nullopt;
  }

  std::string missing;
  std::string error;

 private:
  std::optional<long long> lookup(const std::string& name) {
    auto value = environment_.value(name);
    if (!value && missing.empty()) missing = name;
    return value;
  }

  std::optional<long long> call(const Node& node) {
    const std::string& argument = node.children[0]->name;
    if (node.name == "has") return static_cast<long long>(environment_.value(argument).has_value());
    auto length = environment_.list_length(argument);
    if (node.name == "is_list") return static_cast<long long>(length.has_value());
    if (!length && missing.empty()) missing = argument;
    return length;
  }

  std::optional<long long> binary(const Node& node) {
    const std::string& op = node.name;
    auto left = run(*node.children[0]);
    if (op == "&&" && left && *left == 0) return 0;
    if (op == "||" && left && *left != 0) return 1;
    auto right = run(*node.children[1]);
    if (op == "&&" && right && *right == 0) return 0;  // false wins over an unknown left side
    if (op == "||" && right && *right != 0) return 1;
    if (!left || !right) return std::nullopt;
    long long a = *left, b = *right;
    if (op == "&&") return static_cast<long long>(a != 0 && b != 0);
    if (op == "||") return static_cast<long long>(a != 0 || b != 0);
    if (op == "==") return static_cast<long long>(a == b);
    if (op == "!=") return static_cast<long long>(a != b);
    if (op == "<") return static_cast<long long>(a < b);
    if (op == "<=") return static_cast<long long>(a <= b);
    if (op == ">") return static_cast<long long>(a > b);
    if (op == ">=") return static_cast<long long>(a >= b);
    if (op == "+") return a + b;
    if (op == "-") return a - b;
    if (op == "*") return a * b;
    if (b == 0) {
      if (error.empty()) error = "division by zero";
      return std::nullopt;
    }
    return op == "/" ? a / b : a % b;
  }

  const Environment& environment_;
};

void collect_names(const Node& node, std::vector<std::string>& names) {
  if (node.kind == Node::Kind::name) {
    for (const std::string& known : names)
      if (known == node.name) return;
    names.push_back(node.name);
  }
  for (const auto& child : node.children) collect_names(*child, names);
}

}  // namespace

Expression::Expression(std::shared_ptr<const Node> root, std::string text)
    : root_(std::move(root)), text_(std::move(text)) {}

std::vector<std::string> Expression::names() const {
  std::vector<std::string> names;
  if (root_) collect_names(*root_, names);
  return names;
}

util::Result<Expression> parse_expression(const std::string& text) {
  Parser parser(text);
  util::Result<NodePtr> root = parser.parse();
  if (!root) return root.error();
  return Expression(*root, text);
}

Evaluation evaluate(const Expression& expression, const Environment& environment) {
  Evaluation out;
  if (!expression.root()) {
    out.value = 1;  // an empty `when` always applies
    return out;
  }
  Evaluator evaluator(environment);
  out.value = evaluator.run(*expression.root());
  out.missing = evaluator.missing;
  out.error = evaluator.error;
  if (!out.error.empty()) out.value.reset();
  return out;
}

}  // namespace fastci::planner::workload
