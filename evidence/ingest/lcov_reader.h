#pragma once
/// Reader for lcov tracefiles (.info, optionally gzipped): per test (TN), the lines each file ran.

#include <filesystem>
#include <string>
#include <string_view>

#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// How to attribute an lcov tracefile to tests.
struct LcovOptions {
  /// Test id for records whose TN is empty or missing; empty means launches outside any test.
  std::string default_test_id;
};

/// Streams the tracefile into `sink`: one TestEvidence per TN with the lines whose count > 0,
/// merged across the repeated SF records lcov writes for headers. Fails on malformed input with
/// file, line and what was expected; internal inconsistencies (a hit line in a function that never
/// ran, a mismatching LF) are warnings.
util::Status read_lcov(const std::filesystem::path& file, EvidenceSink& sink);
/// As above, with explicit options.
util::Status read_lcov(const std::filesystem::path& file, EvidenceSink& sink, const LcovOptions& options);

/// Whether a file head (raw bytes, possibly gzip) looks like an lcov tracefile.
bool sniff_lcov(std::string_view head, const std::filesystem::path& file);

}  // namespace fastci::evidence
