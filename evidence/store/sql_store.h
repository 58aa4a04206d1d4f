#pragma once
/// The Store implementation over an SqlConnection: one code path for SQLite and PostgreSQL.

#include <memory>

#include "evidence/store/sql_connection.h"
#include "evidence/store/store.h"

namespace fastci::evidence {

/// Migrates the schema and wraps the connection as a Store.
util::Result<std::unique_ptr<Store>> make_sql_store(std::unique_ptr<SqlConnection> connection);

}  // namespace fastci::evidence
