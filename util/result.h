#pragma once
/// Expected-style results used across module boundaries instead of exceptions.

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace fastci::util {

/// A failure that a user can act on: what went wrong, and where (file and line when known).
struct Error {
  std::string message;
  std::string file;
  int line = 0;

  Error() = default;
  Error(std::string message_, std::string file_ = {}, int line_ = 0)
      : message(std::move(message_)), file(std::move(file_)), line(line_) {}

  /// "file:line: message", or just the message when no location is known.
  std::string to_string() const {
    if (file.empty()) return message;
    return file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + message;
  }
};

/// Either a value or an Error.
template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}
  Result(Error error) : data_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<T>(data_); }
  const T& value() const { return std::get<T>(data_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<Error>(data_); }

 private:
  std::variant<T, Error> data_;
};

/// Result of an operation that yields nothing but may fail.
struct Status {
  std::optional<Error> failure;
  Status() = default;
  Status(Error error) : failure(std::move(error)) {}
  bool ok() const { return !failure.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *failure; }
};

}  // namespace fastci::util
