#pragma once
/// Reader for coverage.py JSON reports (`coverage json --show-contexts`): per test, the lines each
/// file executed.

#include <filesystem>
#include <string_view>

#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// Streams the report into `sink`, one TestEvidence per test (contexts mapped as in
/// coveragepy_contexts.h). The report's branches are not per context, so no arcs are recorded;
/// a report made without --show-contexts gives only the "outside any test" id, with a warning.
util::Status read_coveragepy_json(const std::filesystem::path& file, EvidenceSink& sink);

/// Whether the head looks like a coverage.py JSON report ({"meta": {"version": ..., ...}, "files": ...}).
bool sniff_coveragepy_json(std::string_view head, const std::filesystem::path& file);

}  // namespace fastci::evidence
