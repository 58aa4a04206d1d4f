#pragma once
/// Python's builtin functions, as the linker and the PyCG benchmark adapter name them.

#include <string_view>

namespace fastci::frontend::python {

/// Whether `name` is a builtin function or exception class (when no scope binds it).
bool is_builtin(std::string_view name);

/// Builtins whose result is never a repository object (a file, a string, a number, a range): a
/// call on it (`open(p).read()`) is a library call, not one that may reach any method of its name.
bool returns_library_value(std::string_view name);

/// Builtins and standard-library functions that call the callables they are given, as their
/// function argument or key= (map(f, xs), sorted(xs, key=f), functools.reduce(f, xs)): the caller
/// calls those callables, through the library. Names as written or as imported ("functools.reduce").
bool calls_its_arguments(std::string_view name);

}  // namespace fastci::frontend::python
