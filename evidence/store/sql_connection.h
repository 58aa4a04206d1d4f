#pragma once
/// The small SQL surface the evidence store needs, so one store implementation serves SQLite and
/// PostgreSQL. Statements use `?` placeholders and the SQL both dialects share (ON CONFLICT, RETURNING).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "util/result.h"

namespace fastci::evidence {

/// Bytes stored as a BLOB (SQLite) or BYTEA (PostgreSQL).
struct SqlBlob {
  std::string bytes;
};

/// One parameter or column value.
using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string, SqlBlob>;

/// One result row.
using SqlRow = std::vector<SqlValue>;

/// Column accessors that tolerate NULL and the integer/real mix both engines return.
std::int64_t sql_int(const SqlValue& value);
double sql_real(const SqlValue& value);
bool sql_is_null(const SqlValue& value);
/// Text or blob bytes; empty for NULL.
const std::string& sql_text(const SqlValue& value);

/// A database connection as the store uses it.
class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  /// "sqlite" or "postgresql".
  virtual std::string dialect() const = 0;
  /// File path or URL without password, for messages.
  virtual std::string location() const = 0;
  /// Runs statements without parameters or results (schema migrations).
  virtual util::Status execute_script(const std::string& sql) = 0;
  /// Starts a transaction that will write (SQLite takes the write lock now, so writers queue).
  virtual util::Status begin_write() = 0;
  /// Starts a transaction that only reads, seeing one consistent snapshot.
  virtual util::Status begin_read() = 0;
  virtual util::Status commit() = 0;
  /// Undoes the open transaction; harmless when none is open.
  virtual void rollback() = 0;
  /// Runs one statement, calling `on_row` per result row (prepared statements are cached by text).
  virtual util::Status query(const std::string& sql, const std::vector<SqlValue>& parameters,
                             const std::function<void(const SqlRow&)>& on_row = {}) = 0;
  /// Whether a failed transaction may succeed when retried (deadlock, serialization, busy).
  virtual bool retryable(const util::Error& error) const = 0;
  /// Bytes the database occupies.
  virtual std::int64_t size_bytes() = 0;
};

/// Opens a SQLite database file (created when missing) in WAL mode with a busy timeout.
util::Result<std::unique_ptr<SqlConnection>> open_sqlite(const std::string& path);

/// Opens a PostgreSQL connection; `url` may be empty to use only the PG* environment variables.
util::Result<std::unique_ptr<SqlConnection>> open_postgresql(const std::string& url);

/// `url` with any password replaced by "***" (userinfo and `password=` parameters).
std::string redact_url(const std::string& url);

}  // namespace fastci::evidence
