#pragma once
/// The evidence store's versioned schema: an ordered list of migrations per SQL dialect.

#include <string>
#include <vector>

#include "evidence/store/sql_connection.h"
#include "util/result.h"

namespace fastci::evidence {

/// Migrations in order; migration i brings the schema from version i to i + 1.
std::vector<std::string> schema_migrations(const std::string& dialect);

/// Applies the missing migrations in one write transaction (safe when several processes open a
/// new store at once) and returns the resulting version. Fails on a store newer than this build.
util::Result<int> migrate(SqlConnection& connection);

}  // namespace fastci::evidence
