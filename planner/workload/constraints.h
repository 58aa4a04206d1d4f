#pragma once
/// Validity rules as data (data/constraints.toml): derived values and constraints with their sources.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/workload/catalogue.h"
#include "planner/workload/expression.h"
#include "planner/workload/workload.h"
#include "util/result.h"

namespace fastci::planner::workload {

/// A value computed from knobs before constraints run (dp, virtual_stages, ...).
struct DerivedSpec {
  std::string name;
  Expression when;  ///< empty: always
  Expression expression;
};

/// One rule: where it applies, what must hold, and where the framework enforces it.
struct ConstraintSpec {
  std::string id;
  std::string description;
  Expression when;
  Expression check;
  std::string source;
};

/// The knob values a check sees: proposed, original, and facts of the test's runner.
struct KnobValues {
  std::map<std::string, std::string> current;   ///< canonical name -> value text
  std::map<std::string, std::string> original;  ///< canonical name -> value text before shrinking
  std::map<std::string, long long> facts;       ///< test.<name> (absent facts read as 0)
};

/// Integer value of a knob's text: "12" -> 12, "true" -> 1, "false" -> 0; nothing otherwise ("${X}", "1e-2").
std::optional<long long> parse_integer(const std::string& text);

/// The constraint set.
class Constraints {
 public:
  /// Reads a constraints.toml file; errors name the file and line of the bad entry.
  static util::Result<Constraints> load(const std::string& path);
  /// Parses constraints.toml text; `origin` names it in errors.
  static util::Result<Constraints> parse(const std::string& text, const std::string& origin);

  /// Every rule on `values`: pass, fail, or not applicable (with the reason).
  std::vector<ConstraintResult> check(const KnobValues& values, const Catalogue& catalogue) const;
  /// Value of a name (knob, default or derived) as the checks see it.
  std::optional<long long> value_of(const std::string& name, const KnobValues& values,
                                    const Catalogue& catalogue) const;

  const std::vector<ConstraintSpec>& rules() const { return rules_; }
  const std::vector<DerivedSpec>& derived() const { return derived_; }

 private:
  std::vector<DerivedSpec> derived_;
  std::vector<ConstraintSpec> rules_;
};

}  // namespace fastci::planner::workload
