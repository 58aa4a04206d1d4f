#include "planner/workload/constraints.h"

#include <cctype>
#include <charconv>
#include <memory>

#include "planner/workload/data_file.h"
#include "planner/workload/layers.h"
#include "util/file.h"

namespace fastci::planner::workload {
namespace {

/// Resolves names for one set of knob values; `original` is the environment of the values before
/// shrinking (nullptr when this environment is itself the original one).
class ValueEnvironment : public Environment {
 public:
  ValueEnvironment(const std::map<std::string, std::string>& knobs, const std::map<std::string, long long>& facts,
                   const Catalogue& catalogue, const std::vector<DerivedSpec>& derived,
                   const ValueEnvironment* original)
      : knobs_(knobs), facts_(facts), catalogue_(catalogue), original_(original) {
    for (const DerivedSpec& spec : derived) {
      if (evaluate(spec.when, *this).value.value_or(0) == 0) continue;
      Evaluation result = evaluate(spec.expression, *this);
      if (result.value) derived_[spec.name] = *result.value;
    }
  }

  std::optional<long long> value(const std::string& name) const override {
    if (name.rfind("orig.", 0) == 0) {
      if (!original_) return std::nullopt;
      return original_->value(name.substr(5));
    }
    if (name.rfind("test.", 0) == 0) {
      auto fact = facts_.find(name.substr(5));
      return fact == facts_.end() ? 0 : fact->second;
    }
    if (auto knob = knobs_.find(name); knob != knobs_.end()) {
      if (auto number = parse_integer(knob->second)) return number;
      return std::nullopt;  // present but not an integer (${VAR}): unknown, never the default
    }
    if (auto derived = derived_.find(name); derived != derived_.end()) return derived->second;
    if (const KnobSpec* spec = catalogue_.find(name)) return spec->default_value;
    return std::nullopt;
  }

  std::optional<long long> list_length(const std::string& name) const override {
    auto knob = knobs_.find(name.rfind("orig.", 0) == 0 ? name.substr(5) : name);
    if (knob == knobs_.end()) return std::nullopt;
    auto pattern = parse_layer_list(knob->second);
    if (!pattern) return std::nullopt;
    return static_cast<long long>(pattern->size());
  }

 private:
  const std::map<std::string, std::string>& knobs_;
  const std::map<std::string, long long>& facts_;
  const Catalogue& catalogue_;
  const ValueEnvironment* original_;
  std::map<std::string, long long> derived_;
};

std::string describe_values(const Expression& expression, const Environment& environment) {
  std::string out;
  for (const std::string& name : expression.names()) {
    auto value = environment.value(name);
    if (!out.empty()) out += ", ";
    out += name + "=" + (value ? std::to_string(*value) : std::string("?"));
  }
  return out;
}

util::Result<Expression> parse_field(const toml::table& entry, const char* key, const std::string& origin,
                                     bool required) {
  auto text = entry[key].value<std::string>();
  if (!text) {
    if (required) return util::Error{std::string("missing '") + key + "'", origin, toml_line(entry)};
    return Expression();
  }
  util::Result<Expression> parsed = parse_expression(*text);
  if (!parsed) return util::Error{parsed.error().message, origin, toml_line(entry)};
  return parsed;
}

}  // namespace

std::optional<long long> parse_integer(const std::string& text) {
  if (text == "true" || text == "True") return 1;
  if (text == "false" || text == "False") return 0;
  long long value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [next, error] = std::from_chars(begin, end, value);
  if (error != std::errc() || next != end || text.empty()) return std::nullopt;
  return value;
}

util::Result<Constraints> Constraints::load(const std::string& path) {
  util::Result<std::string> text = util::read_file(path);
  if (!text) return text.error();
  return parse(*text, path);
}

util::Result<Constraints> Constraints::parse(const std::string& text, const std::string& origin) {
  util::Result<toml::table> table = parse_toml(text, origin);
  if (!table) return table.error();
  Constraints out;
  if (const toml::array* derived = (*table)["derived"].as_array()) {
    for (const auto& node : *derived) {
      const toml::table* entry = node.as_table();
      if (!entry) return util::Error{"[[derived]] must be a table", origin, toml_line(node)};
      DerivedSpec spec;
      spec.name = (*entry)["name"].value_or(std::string());
      if (spec.name.empty()) return util::Error{"[[derived]] without a name", origin, toml_line(*entry)};
      auto when = parse_field(*entry, "when", origin, false);
      if (!when) return when.error();
      auto expression = parse_field(*entry, "expr", origin, true);
      if (!expression) return expression.error();
      spec.when = *when;
      spec.expression = *expression;
      out.derived_.push_back(std::move(spec));
    }
  }
  const toml::array* rules = (*table)["constraint"].as_array();
  if (!rules) return util::Error{"expected [[constraint]] entries", origin, 0};
  for (const auto& node : *rules) {
    const toml::table* entry = node.as_table();
    if (!entry) return util::Error{"[[constraint]] must be a table", origin, toml_line(node)};
    ConstraintSpec spec;
    spec.id = (*entry)["id"].value_or(std::string());
    if (spec.id.empty()) return util::Error{"[[constraint]] without an id", origin, toml_line(*entry)};
    spec.description = (*entry)["description"].value_or(std::string());
    spec.source = (*entry)["source"].value_or(std::string());
    if (spec.source.empty())
      return util::Error{"constraint '" + spec.id + "' names no source", origin, toml_line(*entry)};
    auto when = parse_field(*entry, "when", origin, false);
    if (!when) return when.error();
    auto check = parse_field(*entry, "check", origin, true);
    if (!check) return check.error();
    spec.when = *when;
    spec.check = *check;
    for (const ConstraintSpec& known : out.rules_)
      if (known.id == spec.id)
        return util::Error{"constraint '" + spec.id + "' defined twice", origin, toml_line(*entry)};
    out.rules_.push_back(std::move(spec));
  }
  return out;
}

std::vector<ConstraintResult> Constraints::check(const KnobValues& values, const Catalogue& catalogue) const {
  ValueEnvironment original(values.original, values.facts, catalogue, derived_, nullptr);
  ValueEnvironment current(values.current, values.facts, catalogue, derived_, values.original.empty() ? nullptr : &original);
  std::vector<ConstraintResult> out;
  for (const ConstraintSpec& rule : rules_) {
    ConstraintResult result;
    result.id = rule.id;
    result.description = rule.description;
    result.source = rule.source;
    Evaluation when = evaluate(rule.when, current);
    if (!when.value || *when.value == 0) {
      result.status = ConstraintResult::Status::not_applicable;
      result.detail = when.value ? "does not apply (" + rule.when.text() + ")"
                                 : "does not apply: " + (when.missing.empty() ? when.error : when.missing + " unknown");
      out.push_back(std::move(result));
      continue;
    }
    Evaluation check = evaluate(rule.check, current);
    if (!check.value) {
      result.status = check.error.empty() ? ConstraintResult::Status::not_applicable : ConstraintResult::Status::fail;
      result.detail = check.error.empty() ? "cannot check: " + check.missing + " unknown" : check.error;
    } else {
      result.status = *check.value != 0 ? ConstraintResult::Status::pass : ConstraintResult::Status::fail;
      result.detail = rule.check.text() + " with " + describe_values(rule.check, current);
    }
    out.push_back(std::move(result));
  }
  return out;
}

std::optional<long long> Constraints::value_of(const std::string& name, const KnobValues& values,
                                               const Catalogue& catalogue) const {
  ValueEnvironment original(values.original, values.facts, catalogue, derived_, nullptr);
  ValueEnvironment current(values.current, values.facts, catalogue, derived_, values.original.empty() ? nullptr : &original);
  return current.value(name);
}

}  // namespace fastci::planner::workload
