#pragma once
/// Reader for `gcov --json-format` output (.gcov.json.gz, or plain JSON, one document per line
/// with --stdout): the lines each source file ran.

#include <filesystem>
#include <string>
#include <string_view>

#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// gcov knows nothing of tests: the caller names the test the run belongs to.
struct GcovJsonOptions {
  std::string test_id;  ///< empty: coverage outside any test
};

/// Streams gcov's intermediate JSON (format_version 1 and 2) into `sink` as one test whose files
/// are the lines with a count > 0 (lines listed several times, once per function, are merged).
util::Status read_gcov_json(const std::filesystem::path& file, EvidenceSink& sink);
/// As above, with explicit options.
util::Status read_gcov_json(const std::filesystem::path& file, EvidenceSink& sink, const GcovJsonOptions& options);

/// Whether a file head (raw bytes, possibly gzip) looks like gcov JSON.
bool sniff_gcov_json(std::string_view head, const std::filesystem::path& file);

}  // namespace fastci::evidence
