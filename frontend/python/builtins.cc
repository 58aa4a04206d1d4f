#include "frontend/python/builtins.h"

#include <algorithm>
#include <array>

namespace fastci::frontend::python {

namespace {

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& sorted, std::string_view name) {
  return std::binary_search(sorted.begin(), sorted.end(), name);
}

}  // namespace

bool is_builtin(std::string_view name) {
  // Functions, and the exception classes code constructs (`raise StopIteration()`). Sorted.
  static constexpr std::array<std::string_view, 107> kBuiltins = {
      "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BufferError", "EOFError",
      "Exception", "FileExistsError", "FileNotFoundError", "FloatingPointError", "GeneratorExit",
      "ImportError", "IndexError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
      "ModuleNotFoundError", "NameError", "NotImplementedError", "OSError", "OverflowError",
      "PermissionError", "RecursionError", "ReferenceError", "RuntimeError", "StopAsyncIteration",
      "StopIteration", "SyntaxError", "SystemError", "SystemExit", "TimeoutError", "TypeError",
      "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "ValueError", "ZeroDivisionError",
      "__import__", "abs", "all", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes",
      "callable", "chr", "classmethod", "compile", "complex", "delattr", "dict", "dir", "divmod", "enumerate",
      "eval", "exec", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash",
      "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "list", "locals", "map",
      "max", "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "range",
      "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super",
      "tuple", "type", "vars", "zip"};
  return contains(kBuiltins, name);
}

bool returns_library_value(std::string_view name) {
  // Not getattr, next, max, sorted, type, globals...: those hand back whatever they were given.
  static constexpr std::array<std::string_view, 22> kLibrary = {
      "ascii", "bin",  "bool",  "bytearray", "bytes",      "chr",  "complex", "dir",   "float",   "format", "hash",
      "hex",   "id",   "input", "int",       "len",        "oct",  "open",    "ord",   "range",   "repr",   "str"};
  return contains(kLibrary, name);
}

bool calls_its_arguments(std::string_view name) {
  static constexpr std::array<std::string_view, 13> kHigherOrder = {
      "filter",           "functools.reduce",     "itertools.accumulate", "itertools.dropwhile", "itertools.filterfalse",
      "itertools.groupby", "itertools.starmap",   "itertools.takewhile",  "map",                 "max",
      "min",              "reduce",               "sorted"};
  return contains(kHigherOrder, name);
}

}  // namespace fastci::frontend::python
