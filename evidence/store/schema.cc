#include "evidence/store/schema.h"

#include <regex>

namespace fastci::evidence {

namespace {

/// Version 1. Test ids and paths are interned; coverage is one row per (run, test, file) with lines
/// and arcs as compact BLOBs (coverage_codec.h), indexed by file for "who covers these lines".
constexpr const char* kVersion1 = R"SQL(
CREATE TABLE runs (
  id {ID},
  name TEXT,
  commit_sha TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL DEFAULT '',
  runner TEXT NOT NULL DEFAULT '',
  environment TEXT NOT NULL DEFAULT '',
  source_format TEXT NOT NULL DEFAULT '',
  source_file TEXT NOT NULL DEFAULT '',
  ingested_at TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX runs_name ON runs (name);
CREATE INDEX runs_commit ON runs (commit_sha);
CREATE TABLE tests (id {ID}, name TEXT NOT NULL UNIQUE);
CREATE TABLE files (id {ID}, path TEXT NOT NULL UNIQUE);
CREATE TABLE results (
  run_id {INT} NOT NULL,
  test_id {INT} NOT NULL,
  outcome TEXT,
  duration {REAL},
  gpus {INT} NOT NULL DEFAULT 0,
  message TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, test_id)
);
CREATE INDEX results_test ON results (test_id);
CREATE TABLE coverage (
  run_id {INT} NOT NULL,
  test_id {INT} NOT NULL,
  file_id {INT} NOT NULL,
  first_line {INT} NOT NULL,
  last_line {INT} NOT NULL,
  lines {BLOB} NOT NULL,
  arcs {BLOB} NOT NULL,
  PRIMARY KEY (run_id, test_id, file_id)
);
CREATE INDEX coverage_file ON coverage (file_id, first_line, last_line);
CREATE INDEX coverage_test ON coverage (test_id, run_id);
CREATE TABLE contexts (
  run_id {INT} NOT NULL,
  test_id {INT} NOT NULL,
  function {KEY} NOT NULL,
  context_key TEXT NOT NULL,
  callers TEXT NOT NULL,
  arguments TEXT NOT NULL,
  arcs {BLOB} NOT NULL,
  count {INT} NOT NULL,
  PRIMARY KEY (run_id, test_id, function, context_key)
);
CREATE INDEX contexts_function ON contexts (function);
CREATE INDEX contexts_test ON contexts (test_id, run_id);
CREATE TABLE kernels (
  run_id {INT} NOT NULL,
  test_id {INT} NOT NULL,
  name {KEY} NOT NULL,
  grid TEXT NOT NULL,
  block TEXT NOT NULL,
  shared_memory {INT} NOT NULL,
  template_arguments TEXT NOT NULL,
  count {INT} NOT NULL,
  total_duration_us {REAL} NOT NULL,
  PRIMARY KEY (run_id, test_id, name, grid, block, shared_memory, template_arguments)
);
CREATE INDEX kernels_name ON kernels (name);
CREATE INDEX kernels_test ON kernels (test_id, run_id);
CREATE TABLE knob_values (
  run_id {INT} NOT NULL,
  test_id {INT} NOT NULL,
  knob TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (run_id, test_id, knob)
);
CREATE INDEX knob_values_test ON knob_values (test_id);
)SQL";

std::string for_dialect(std::string sql, const std::string& dialect) {
  bool postgres = dialect == "postgresql";
  sql = std::regex_replace(sql, std::regex(R"(\{ID\})"), postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY");
  // Prefix range scans (name >= p AND name < p + U+10FFFF) need byte order, not the locale's.
  sql = std::regex_replace(sql, std::regex(R"(\{KEY\})"), postgres ? "TEXT COLLATE \"C\"" : "TEXT");
  sql = std::regex_replace(sql, std::regex(R"(\{INT\})"), postgres ? "BIGINT" : "INTEGER");
  sql = std::regex_replace(sql, std::regex(R"(\{REAL\})"), postgres ? "DOUBLE PRECISION" : "REAL");
  sql = std::regex_replace(sql, std::regex(R"(\{BLOB\})"), postgres ? "BYTEA" : "BLOB");
  return sql;
}

}  // namespace

std::vector<std::string> schema_migrations(const std::string& dialect) {
  return {for_dialect(kVersion1, dialect)};
}

util::Result<int> migrate(SqlConnection& connection) {
  const std::vector<std::string> migrations = schema_migrations(connection.dialect());
  const int latest = static_cast<int>(migrations.size());
  // Fast path without the write lock: a store already at the latest version.
  int version = -1;
  if (connection.query("SELECT version FROM schema_version", {},
                       [&](const SqlRow& row) { version = static_cast<int>(sql_int(row[0])); })) {
    connection.rollback();  // PostgreSQL aborts nothing here, but keep both engines in autocommit
    if (version == latest) return version;
  } else {
    connection.rollback();
  }
  if (util::Status begun = connection.begin_write(); !begun) return begun.error();
  if (connection.dialect() == "postgresql") {
    // Serializes concurrent first opens; released at commit.
    if (util::Status locked = connection.query("SELECT pg_advisory_xact_lock(7419263551)", {}); !locked) {
      connection.rollback();
      return locked.error();
    }
  }
  util::Status created = connection.query("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)", {});
  if (!created) {
    connection.rollback();
    return created.error();
  }
  version = -1;
  util::Status read = connection.query("SELECT version FROM schema_version", {},
                                       [&](const SqlRow& row) { version = static_cast<int>(sql_int(row[0])); });
  if (!read) {
    connection.rollback();
    return read.error();
  }
  if (version < 0) {
    version = 0;
    if (util::Status s = connection.query("INSERT INTO schema_version (version) VALUES (0)", {}); !s) {
      connection.rollback();
      return s.error();
    }
  }
  if (version > latest) {
    connection.rollback();
    return util::Error{"evidence store schema version " + std::to_string(version) +
                           " is newer than this fastci understands (" + std::to_string(latest) + ")",
                       connection.location(), 0};
  }
  for (; version < latest; ++version) {
    util::Status applied = connection.execute_script(migrations[static_cast<std::size_t>(version)]);
    if (!applied) {
      connection.rollback();
      return util::Error{"schema migration to version " + std::to_string(version + 1) +
                             " failed: " + applied.error().message,
                         connection.location(), 0};
    }
  }
  if (util::Status s = connection.query("UPDATE schema_version SET version = ?", {std::int64_t{version}}); !s) {
    connection.rollback();
    return s.error();
  }
  if (util::Status committed = connection.commit(); !committed) return committed.error();
  return version;
}

}  // namespace fastci::evidence
