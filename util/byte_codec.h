#pragma once
/// A compact binary encoding for cache records: varints, length-prefixed strings and counts.
/// Reading a record back builds no intermediate document (MessagePack through a JSON DOM cost most
/// of a warm analysis); every length is checked against the bytes left.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fastci::util {

/// A record that ends early or holds an impossible length.
struct ByteCodecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Appends values to a byte string.
class ByteWriter {
 public:
  /// An unsigned LEB128 varint.
  void u64(std::uint64_t value);
  /// A signed value, zigzag-encoded (small negatives stay short: -1 is one byte).
  void i64(std::int64_t value) { u64((static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63)); }
  void boolean(bool value) { bytes_.push_back(value ? '\1' : '\0'); }
  /// A length, then the bytes.
  void str(std::string_view value);
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

/// Reads what a ByteWriter wrote, in the same order; throws ByteCodecError on a short or bad record.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t u64();
  std::int64_t i64() {
    std::uint64_t v = u64();
    return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  /// An i64 that must fit an int.
  int i32();
  bool boolean();
  std::string str();
  /// A count of elements that follow, each at least one byte long: a count larger than the bytes
  /// left is a corrupt record, not a reason to reserve gigabytes.
  std::size_t count();
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace fastci::util
