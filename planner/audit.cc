#include "planner/audit.h"

#include <charconv>
#include <cmath>
#include <string>

#include "util/hash.h"

namespace fastci::planner {

util::Result<double> parse_audit_fraction(std::string_view text) {
  std::string_view number = text;
  bool percent = !number.empty() && number.back() == '%';
  if (percent) number.remove_suffix(1);
  double value = 0;
  auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || error != std::errc() || end != number.data() + number.size() || !std::isfinite(value))
    return util::Error{"--audit-skipped: expected a share of the skipped tests such as 2% or 0.02, got '" +
                       std::string(text) + "'"};
  if (percent) value /= 100;
  if (value < 0 || value > 1)
    return util::Error{"--audit-skipped: '" + std::string(text) + "' is not between 0 and 100%"};
  return value;
}

bool in_audit_sample(std::string_view commit, std::string_view test_id, double fraction) {
  if (fraction <= 0) return false;
  if (fraction >= 1) return true;
  std::string key(commit);
  key += '\x1f';
  key += test_id;
  // The hash's top 53 bits as a uniform number in [0, 1).
  double u = static_cast<double>(util::hash64(key) >> 11) / 9007199254740992.0;
  return u < fraction;
}

std::vector<AuditEntry> sample_audit(const Selection& selection, std::string_view commit, double fraction) {
  std::vector<AuditEntry> out;
  for (const auto& s : selection.skipped)
    if (in_audit_sample(commit, s.test.id, fraction)) out.push_back({s.test, s.reason});
  return out;
}

}  // namespace fastci::planner
