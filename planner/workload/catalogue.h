#pragma once
/// The knob catalogue: canonical workload dimensions, their aliases and scope patterns, read from data.

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "util/result.h"

namespace fastci::planner::workload {

/// What a knob controls, which decides how it may shrink.
enum class KnobRole { size, parallel, batch, iterations, interval, threshold, layout, flag };

/// One catalogue entry.
struct KnobSpec {
  std::string name;
  KnobRole role = KnobRole::size;
  std::string description;
  std::vector<std::string> aliases;         ///< normalised spellings
  std::vector<std::string> scope_patterns;  ///< as written in the data file
  std::vector<std::regex> scope_regexes;    ///< compiled scope_patterns
  std::optional<long long> default_value;
  std::optional<long long> minimum;
};

/// The catalogue: lookup by canonical name or by any alias.
class Catalogue {
 public:
  /// Reads a knobs.toml file; errors name the file and the entry.
  static util::Result<Catalogue> load(const std::string& path);
  /// Parses knobs.toml text; `origin` names it in errors.
  static util::Result<Catalogue> parse(const std::string& text, const std::string& origin);

  /// Canonical name for a raw spelling ("--num-layers", "model.config.num_layers"), if known.
  std::optional<std::string> canonical(const std::string& raw_name) const;
  /// The entry of a canonical name, or nullptr.
  const KnobSpec* find(const std::string& name) const;
  /// All entries in file order.
  const std::vector<KnobSpec>& knobs() const { return knobs_; }
  /// Canonical names of knobs whose scope patterns match the test id (case-insensitive).
  std::vector<std::pair<std::string, std::string>> named_in(const std::string& test_id) const;

 private:
  std::vector<KnobSpec> knobs_;
};

/// Lower case, leading dashes dropped, '-' replaced by '_'.
std::string normalise_knob_name(const std::string& raw_name);
/// Lowercase role name used in the data file.
const char* to_string(KnobRole role);

}  // namespace fastci::planner::workload
