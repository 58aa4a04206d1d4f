#pragma once
/// Reader for coverage.py data files (`.coverage`, SQLite schema 7, coverage.py 5.0 to 7.x) with
/// dynamic contexts: per test, the lines (numbits) or arcs each measured file executed.

#include <filesystem>
#include <string_view>

#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// Streams the data file into `sink`, one TestEvidence per test: contexts "nodeid|setup", "|run"
/// and "|teardown" merge into the node id; the "" context (code run outside any test, e.g. at
/// import) becomes the empty test id. Paths are kept as recorded (absolute): the ingest's root
/// option makes them repository-relative. Tests whose contexts recorded nothing are still reported
/// and warned about, since missing per-test coverage must not read as "runs nothing".
util::Status read_coveragepy_sqlite(const std::filesystem::path& file, EvidenceSink& sink);

/// Whether the file is an SQLite database with coverage.py's `coverage_schema` table.
bool sniff_coveragepy_sqlite(std::string_view head, const std::filesystem::path& file);

}  // namespace fastci::evidence
