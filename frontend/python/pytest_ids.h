#pragma once
/// pytest's parametrization id rules, reproduced from source literals (pytest 8/9 `IdMaker`).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fastci::frontend::python {

/// The value of a Python string literal as UTF-8 (prefixes r, u, b handled); none for f-strings
/// and malformed literals.
std::optional<std::string> string_literal_value(std::string_view literal);

/// Whether a string literal is a bytes literal (b"...").
bool is_bytes_literal(std::string_view literal);

/// str() of a Python integer literal (0x10 -> "16", 1_000 -> "1000"); none when out of range.
std::optional<std::string> python_int_str(std::string_view literal);

/// repr() of a Python float literal as Python prints it (1e-5 -> "1e-05", 3. -> "3.0").
std::optional<std::string> python_float_repr(std::string_view literal);

/// pytest's ascii_escaped for a str given as UTF-8: unicode_escape then non-printables escaped.
std::string pytest_ascii_escaped(std::string_view utf8);

/// pytest's ascii_escaped for bytes: ASCII kept, other bytes as \xNN.
std::string pytest_ascii_escaped_bytes(std::string_view bytes);

/// pytest's make_unique_parameterset_ids: suffixes duplicates with a counter.
std::vector<std::string> make_unique_ids(std::vector<std::string> ids);

}  // namespace fastci::frontend::python
