#pragma once
/// Reader for `llvm-cov export` JSON (llvm.coverage.json.export): executed lines per file,
/// computed from region segments the way llvm-cov itself counts lines.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// llvm-cov knows nothing of tests: the caller names the test the profile belongs to.
struct LlvmCovOptions {
  std::string test_id;  ///< empty: coverage outside any test
};

/// One coverage segment as llvm-cov exports it: [line, col, count, hasCount, isRegionEntry, isGapRegion].
struct CoverageSegment {
  int line = 0;
  int column = 0;
  std::uint64_t count = 0;
  bool has_count = false;
  bool is_region_entry = false;
  bool is_gap_region = false;
};

/// Lines with an execution count > 0, from a file's segments (sorted by position), using
/// llvm-cov's line rule: the max count of the regions starting on the line and the region
/// wrapping into it; gap regions and lines starting a skipped region do not count.
std::vector<int> executed_lines(const std::vector<CoverageSegment>& segments);

/// Streams an llvm-cov export into `sink` as one test with the executed lines of every file.
util::Status read_llvm_cov(const std::filesystem::path& file, EvidenceSink& sink);
/// As above, with explicit options.
util::Status read_llvm_cov(const std::filesystem::path& file, EvidenceSink& sink, const LlvmCovOptions& options);

/// Whether a file head (raw bytes, possibly gzip) looks like an llvm-cov JSON export.
bool sniff_llvm_cov(std::string_view head, const std::filesystem::path& file);

}  // namespace fastci::evidence
