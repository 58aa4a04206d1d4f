#pragma once
/// Escapes measured, not assumed: a small random sample of the tests a plan skips is added to it as
/// audit entries, run after everything else and never blocking. A failure among them is an escape:
/// a test fastci skipped that fails on the change.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "planner/select.h"
#include "util/result.h"

namespace fastci::planner {

/// A skipped test the plan runs anyway, as an audit of the skip.
struct AuditEntry {
  frontend::Test test;
  std::string skipped_because;  ///< the skip reason being audited
};

/// Reads "2%", "0.02" or "0": the share of skipped tests to audit, in [0, 1].
util::Result<double> parse_audit_fraction(std::string_view text);

/// Whether `test_id` is in the audit sample of `commit` at `fraction`: a hash of both, so that the
/// same change audits the same tests when it is planned again, and another commit other ones.
bool in_audit_sample(std::string_view commit, std::string_view test_id, double fraction);

/// The skipped tests of `selection` in the sample, in the order they were skipped.
std::vector<AuditEntry> sample_audit(const Selection& selection, std::string_view commit, double fraction);

}  // namespace fastci::planner
