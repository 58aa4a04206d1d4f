#include "planner/python_header.h"

namespace fastci::planner {
namespace {

/// Whether `source` holds the same quote character three times at `at`.
bool triple_quote_at(std::string_view source, std::size_t at, char quote) {
  return at + 2 < source.size() && source[at] == quote && source[at + 1] == quote && source[at + 2] == quote;
}

}  // namespace

int python_header_end(std::string_view source, int first_line) {
  std::size_t at = 0;
  for (int line = 1; line < first_line; ++line) {
    at = source.find('\n', at);
    if (at == std::string_view::npos) return first_line;
    ++at;
  }
  int line = first_line, depth = 0;
  char quote = 0;
  bool triple = false;
  for (std::size_t i = at; i < source.size(); ++i) {
    char c = source[i];
    if (c == '\n') {
      ++line;
      if (quote && !triple) quote = 0;  // an unterminated string ends with its line
      continue;
    }
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote && (!triple || triple_quote_at(source, i, quote))) {
        if (triple) i += 2;
        quote = 0;
      }
      continue;
    }
    if (c == '#') {
      auto end = source.find('\n', i);
      if (end == std::string_view::npos) break;
      i = end - 1;
    } else if (c == '"' || c == '\'') {
      quote = c;
      triple = triple_quote_at(source, i, c);
      if (triple) i += 2;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ':' && depth == 0) {
      return line;
    }
  }
  return first_line;
}

}  // namespace fastci::planner
