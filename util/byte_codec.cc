#include "util/byte_codec.h"

#include <limits>

namespace fastci::util {

void ByteWriter::u64(std::uint64_t value) {
  while (value >= 0x80) {
    bytes_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  bytes_.push_back(static_cast<char>(value));
}

void ByteWriter::str(std::string_view value) {
  u64(value.size());
  bytes_.append(value);
}

std::uint64_t ByteReader::u64() {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at_ >= bytes_.size()) throw ByteCodecError("record ends inside a number");
    auto byte = static_cast<unsigned char>(bytes_[at_++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return value;
  }
  throw ByteCodecError("number longer than 64 bits");
}

int ByteReader::i32() {
  std::int64_t v = i64();
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw ByteCodecError("number out of range");
  return static_cast<int>(v);
}

bool ByteReader::boolean() {
  if (at_ >= bytes_.size()) throw ByteCodecError("record ends inside a flag");
  char c = bytes_[at_++];
  if (c != '\0' && c != '\1') throw ByteCodecError("flag is neither 0 nor 1");
  return c == '\1';
}

std::string ByteReader::str() {
  std::uint64_t size = u64();
  if (size > bytes_.size() - at_) throw ByteCodecError("string longer than the record");
  std::string out(bytes_.substr(at_, size));
  at_ += size;
  return out;
}

std::size_t ByteReader::count() {
  std::uint64_t n = u64();
  if (n > bytes_.size() - at_) throw ByteCodecError("count larger than the record");
  return static_cast<std::size_t>(n);
}

}  // namespace fastci::util
