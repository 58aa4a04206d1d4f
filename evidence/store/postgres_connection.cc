// The PostgreSQL side of SqlConnection, on libpqxx 6. Built only with FASTCI_WITH_POSTGRESQL.

#include <pqxx/pqxx>

#include <cstdio>
#include <unordered_map>

#include "evidence/store/sql_connection.h"

namespace fastci::evidence {

/// A statement parameter in PostgreSQL's text format, or NULL.
struct PostgresParameter {
  bool null = false;
  std::string text;
};

}  // namespace fastci::evidence

namespace pqxx {

/// Lets dynamic parameter lists carry NULLs next to values.
template <>
struct string_traits<fastci::evidence::PostgresParameter> {
  static constexpr const char* name() noexcept { return "PostgresParameter"; }
  static constexpr bool has_null() noexcept { return true; }
  static bool is_null(const fastci::evidence::PostgresParameter& value) { return value.null; }
  static fastci::evidence::PostgresParameter null() { return {true, {}}; }
  static void from_string(const char text[], fastci::evidence::PostgresParameter& value) { value = {false, text}; }
  static std::string to_string(const fastci::evidence::PostgresParameter& value) { return value.text; }
};

}  // namespace pqxx

namespace fastci::evidence {

namespace {

constexpr pqxx::oid kBoolOid = 16, kByteaOid = 17, kInt8Oid = 20, kInt2Oid = 21, kInt4Oid = 23, kFloat4Oid = 700,
                    kFloat8Oid = 701, kNumericOid = 1700;

/// `?` placeholders to PostgreSQL's `$1, $2, ...`, leaving quoted text alone.
std::string number_placeholders(const std::string& sql) {
  std::string out;
  int next = 1;
  char quote = 0;
  for (char c : sql) {
    if (quote) {
      if (c == quote) quote = 0;
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '?') {
      out += '$' + std::to_string(next++);
    } else {
      out += c;
    }
  }
  return out;
}

std::string hex_bytes(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out = "\\x";
  out.reserve(2 + bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

PostgresParameter to_parameter(const SqlValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return {false, std::to_string(*i)};
  if (const auto* d = std::get_if<double>(&value)) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.17g", *d);
    return {false, buffer};
  }
  if (const auto* s = std::get_if<std::string>(&value)) return {false, *s};
  if (const auto* b = std::get_if<SqlBlob>(&value)) return {false, hex_bytes(b->bytes)};
  return {true, {}};
}

class PostgresConnection final : public SqlConnection {
 public:
  PostgresConnection(std::unique_ptr<pqxx::connection> connection, std::string location)
      : connection_(std::move(connection)), location_(std::move(location)) {}

  ~PostgresConnection() override { rollback(); }

  std::string dialect() const override { return "postgresql"; }
  std::string location() const override { return location_; }

  util::Status execute_script(const std::string& sql) override {
    return guarded([&] {
      if (transaction_) {
        transaction_->exec(sql);
      } else {
        pqxx::nontransaction once(*connection_);
        once.exec(sql);
      }
    });
  }

  util::Status begin_write() override {
    rollback();
    return guarded([&] { transaction_ = std::make_unique<pqxx::work>(*connection_); });
  }

  util::Status begin_read() override {
    rollback();
    return guarded([&] {
      transaction_ = std::make_unique<pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>>(*connection_);
    });
  }

  util::Status commit() override {
    if (!transaction_) return {};
    util::Status status = guarded([&] { transaction_->commit(); });
    transaction_.reset();
    return status;
  }

  void rollback() override {
    if (!transaction_) return;
    try {
      transaction_->abort();
    } catch (const std::exception&) {
      // The connection is gone: the server has rolled back already.
    }
    transaction_.reset();
  }

  util::Status query(const std::string& sql, const std::vector<SqlValue>& parameters,
                     const std::function<void(const SqlRow&)>& on_row) override {
    return guarded([&] {
      const std::string& name = prepared_name(sql);
      std::vector<PostgresParameter> values;
      values.reserve(parameters.size());
      for (const SqlValue& value : parameters) values.push_back(to_parameter(value));
      pqxx::result result;
      if (transaction_) {
        result = transaction_->exec_prepared(name, pqxx::prepare::make_dynamic_params(values));
      } else {
        pqxx::nontransaction once(*connection_);
        result = once.exec_prepared(name, pqxx::prepare::make_dynamic_params(values));
      }
      if (!on_row) return;
      std::vector<pqxx::oid> types;
      for (pqxx::row::size_type c = 0; c < result.columns(); ++c) types.push_back(result.column_type(c));
      SqlRow row(types.size());
      for (const pqxx::row& record : result) {
        for (std::size_t c = 0; c < types.size(); ++c) row[c] = column(record[static_cast<pqxx::row::size_type>(c)], types[c]);
        on_row(row);
      }
    });
  }

  bool retryable(const util::Error& error) const override {
    // serialization failure, deadlock, and a unique race on a named run that a retry will find
    for (const char* state : {"SQLSTATE 40001", "SQLSTATE 40P01", "SQLSTATE 23505"}) {
      if (error.message.find(state) != std::string::npos) return true;
    }
    return false;
  }

  std::int64_t size_bytes() override {
    std::int64_t bytes = 0;
    util::Status status = query("SELECT pg_database_size(current_database())", {},
                                [&](const SqlRow& row) { bytes = sql_int(row[0]); });
    return status ? bytes : 0;
  }

 private:
  template <typename Body>
  util::Status guarded(Body body) {
    try {
      body();
      return {};
    } catch (const pqxx::sql_error& e) {
      std::string message = e.what();
      while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
      if (!e.sqlstate().empty()) message += " (SQLSTATE " + e.sqlstate() + ")";
      return util::Error{redact_url(message), location_, 0};
    } catch (const std::exception& e) {
      return util::Error{redact_url(e.what()), location_, 0};
    }
  }

  const std::string& prepared_name(const std::string& sql) {
    auto found = prepared_.find(sql);
    if (found != prepared_.end()) return found->second;
    std::string name = "fastci_" + std::to_string(prepared_.size());
    connection_->prepare(name, number_placeholders(sql));
    return prepared_.emplace(sql, name).first->second;
  }

  static SqlValue column(const pqxx::field& field, pqxx::oid type) {
    if (field.is_null()) return std::monostate{};
    switch (type) {
      case kInt8Oid:
      case kInt4Oid:
      case kInt2Oid: return static_cast<std::int64_t>(std::strtoll(field.c_str(), nullptr, 10));
      case kBoolOid: return static_cast<std::int64_t>(field.c_str()[0] == 't' ? 1 : 0);
      case kFloat4Oid:
      case kFloat8Oid:
      case kNumericOid: return std::strtod(field.c_str(), nullptr);
      case kByteaOid: {
        pqxx::binarystring bytes(field);
        return SqlBlob{bytes.str()};
      }
      default: return std::string(field.c_str(), field.size());
    }
  }

  std::unique_ptr<pqxx::connection> connection_;
  std::string location_;
  std::unique_ptr<pqxx::dbtransaction> transaction_;
  std::unordered_map<std::string, std::string> prepared_;
};

}  // namespace

util::Result<std::unique_ptr<SqlConnection>> open_postgresql(const std::string& url) {
  std::string location = url.empty() ? std::string("PostgreSQL from PG* environment") : redact_url(url);
  try {
    auto connection = std::make_unique<pqxx::connection>(url);
    // Quiet NOTICEs ("relation already exists, skipping") that would clutter CI logs.
    pqxx::nontransaction setup(*connection);
    setup.exec("SET client_min_messages TO WARNING");
    setup.commit();
    return std::unique_ptr<SqlConnection>(std::make_unique<PostgresConnection>(std::move(connection), location));
  } catch (const std::exception& e) {
    std::string message = e.what();
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    return util::Error{"cannot connect to the evidence store: " + redact_url(message), location, 0};
  }
}

}  // namespace fastci::evidence
