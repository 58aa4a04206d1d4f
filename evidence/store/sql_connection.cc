#include "evidence/store/sql_connection.h"

#include <cstdlib>
#include <regex>

namespace fastci::evidence {

std::int64_t sql_int(const SqlValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return *i;
  if (const auto* d = std::get_if<double>(&value)) return static_cast<std::int64_t>(*d);
  if (const auto* s = std::get_if<std::string>(&value)) return std::strtoll(s->c_str(), nullptr, 10);
  return 0;
}

double sql_real(const SqlValue& value) {
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&value)) return std::strtod(s->c_str(), nullptr);
  return 0;
}

bool sql_is_null(const SqlValue& value) { return std::holds_alternative<std::monostate>(value); }

const std::string& sql_text(const SqlValue& value) {
  static const std::string empty;
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* b = std::get_if<SqlBlob>(&value)) return b->bytes;
  return empty;
}

std::string redact_url(const std::string& url) {
  // userinfo password: scheme://user:secret@host -> scheme://user:***@host
  static const std::regex userinfo(R"(^([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@?#]*):[^@/?#]*@)");
  // keyword form and query parameters: password=secret
  static const std::regex keyword(R"((password\s*=\s*)('[^']*'|[^&\s]*))", std::regex::icase);
  std::string redacted = std::regex_replace(url, userinfo, "$1:***@");
  return std::regex_replace(redacted, keyword, "$1***");
}

}  // namespace fastci::evidence
