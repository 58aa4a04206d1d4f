#include "frontend/python/pytest_ids.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

namespace fastci::frontend::python {
namespace {

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

std::optional<std::uint32_t> hex_value(std::string_view digits) {
  std::uint32_t value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

/// Decodes the escapes of a non-raw literal body; none on an escape it does not know.
std::optional<std::string> decode_escapes(std::string_view body, bool bytes) {
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
      case '\n': break;  // line continuation
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case 'x': {
        if (i + 2 >= body.size()) return std::nullopt;
        auto v = hex_value(body.substr(i + 1, 2));
        if (!v) return std::nullopt;
        if (bytes) out += static_cast<char>(*v);
        else append_utf8(out, *v);
        i += 2;
        break;
      }
      case 'u':
      case 'U': {
        if (bytes) {
          out += '\\';
          out += e;
          break;
        }
        std::size_t n = e == 'u' ? 4 : 8;
        auto v = hex_value(body.substr(i + 1, n));
        if (!v || *v > 0x10FFFF) return std::nullopt;
        append_utf8(out, *v);
        i += n;
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          std::uint32_t v = 0;
          std::size_t n = 0;
          while (n < 3 && i < body.size() && body[i] >= '0' && body[i] <= '7') {
            v = v * 8 + (body[i] - '0');
            ++i;
            ++n;
          }
          --i;
          if (bytes) out += static_cast<char>(v & 0xFF);
          else append_utf8(out, v);
        } else if (e == 'N') {
          return std::nullopt;  // \N{NAME}: needs the Unicode name table
        } else {
          out += '\\';
          out += e;
        }
    }
  }
  return out;
}

/// Decodes one UTF-8 code point at `i`, advancing it; invalid bytes come back as themselves.
std::uint32_t next_code_point(std::string_view s, std::size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (extra == 0 || i + extra >= s.size()) {
    ++i;
    return c;
  }
  std::uint32_t code = c & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) code = (code << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += extra + 1;
  return code;
}

std::string hex_escape(const char* prefix, std::uint32_t value, int width) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%s%0*x", prefix, width, value);
  return buffer;
}

}  // namespace

bool is_bytes_literal(std::string_view literal) {
  for (char c : literal) {
    if (c == '\'' || c == '"') return false;
    if (c == 'b' || c == 'B') return true;
  }
  return false;
}

std::optional<std::string> string_literal_value(std::string_view literal) {
  std::size_t quote = literal.find_first_of("'\"");
  if (quote == std::string_view::npos) return std::nullopt;
  bool raw = false, bytes = false;
  for (char c : literal.substr(0, quote)) {
    switch (c) {
      case 'r': case 'R': raw = true; break;
      case 'b': case 'B': bytes = true; break;
      case 'u': case 'U': break;
      default: return std::nullopt;  // f-strings and template strings are not static
    }
  }
  std::string_view rest = literal.substr(quote);
  std::size_t delimiter = (rest.size() >= 6 && rest[1] == rest[0] && rest[2] == rest[0]) ? 3 : 1;
  if (rest.size() < 2 * delimiter) return std::nullopt;
  std::string_view body = rest.substr(delimiter, rest.size() - 2 * delimiter);
  if (raw) return std::string(body);
  return decode_escapes(body, bytes);
}

std::optional<std::string> python_int_str(std::string_view literal) {
  std::string digits;
  for (char c : literal)
    if (c != '_') digits += c;
  int base = 10;
  std::size_t start = 0;
  if (digits.size() > 2 && digits[0] == '0') {
    char p = digits[1] | 0x20;
    if (p == 'x') base = 16;
    else if (p == 'o') base = 8;
    else if (p == 'b') base = 2;
    if (base != 10) start = 2;
  }
  if (base == 10) {
    std::size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos) return std::string("0");
    for (char c : digits)
      if (c < '0' || c > '9') return std::nullopt;
    return digits.substr(first);  // arbitrary precision: decimal text is already str()
  }
  unsigned long long value = 0;
  auto [end, error] = std::from_chars(digits.data() + start, digits.data() + digits.size(), value, base);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return std::to_string(value);
}

std::optional<std::string> python_float_repr(std::string_view literal) {
  std::string text;
  for (char c : literal)
    if (c != '_') text += c;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  if (std::isinf(value)) return std::string(value < 0 ? "-inf" : "inf");
  if (std::isnan(value)) return std::string("nan");
  // Shortest round-trip digits, then Python's layout (repr switches to exponent form when the
  // decimal exponent is below -4 or at least 16).
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string sci(buffer, result.ptr);
  bool negative = !sci.empty() && sci[0] == '-';
  if (negative) sci.erase(0, 1);
  std::size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  int exponent = std::stoi(sci.substr(e + 1));
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + exp;
  }
  if (exponent < 0) {
    out += "0." + std::string(-exponent - 1, '0') + digits;
    return out;
  }
  std::size_t integer_digits = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() <= integer_digits) {
    out += digits + std::string(integer_digits - digits.size(), '0') + ".0";
  } else {
    out += digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
  }
  return out;
}

std::string pytest_ascii_escaped(std::string_view utf8) {
  std::string out;
  std::size_t i = 0;
  while (i < utf8.size()) {
    std::uint32_t code = next_code_point(utf8, i);
    if (code == '\\') out += "\\\\";
    else if (code == '\t') out += "\\t";
    else if (code == '\n') out += "\\n";
    else if (code == '\r') out += "\\r";
    else if (code < 0x20 || (code >= 0x7F && code < 0x100)) out += hex_escape("\\x", code, 2);
    else if (code < 0x80) out += static_cast<char>(code);
    else if (code < 0x10000) out += hex_escape("\\u", code, 4);
    else out += hex_escape("\\U", code, 8);
  }
  return out;
}

std::string pytest_ascii_escaped_bytes(std::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    unsigned char b = static_cast<unsigned char>(c);
    if (b == '\t') out += "\\t";
    else if (b == '\n') out += "\\n";
    else if (b == '\r') out += "\\r";
    else if (b < 0x20 || b >= 0x7F) out += hex_escape("\\x", b, 2);
    else out += c;
  }
  return out;
}

std::vector<std::string> make_unique_ids(std::vector<std::string> ids) {
  std::map<std::string, int> counts;
  for (const auto& id : ids) ++counts[id];
  bool duplicates = false;
  for (const auto& [id, count] : counts) duplicates |= count > 1;
  if (!duplicates) return ids;
  std::map<std::string, int> suffixes;
  std::vector<std::string> resolved = ids;
  for (std::size_t index = 0; index < ids.size(); ++index) {
    const std::string id = ids[index];
    if (counts[id] <= 1) continue;
    std::string separator = (!id.empty() && std::isdigit(static_cast<unsigned char>(id.back()))) ? "_" : "";
    auto in_use = [&](const std::string& candidate) {
      for (const auto& r : resolved)
        if (r == candidate) return true;
      return false;
    };
    std::string candidate = id + separator + std::to_string(suffixes[id]);
    while (in_use(candidate)) {
      ++suffixes[id];
      candidate = id + separator + std::to_string(suffixes[id]);
    }
    resolved[index] = candidate;
    ++suffixes[id];
  }
  return resolved;
}

}  // namespace fastci::frontend::python
