#pragma once
/// Content hashing (xxHash) shared by the fact model, the index cache and the evidence store.

#include <cstdint>
#include <string>
#include <string_view>

namespace fastci::util {

/// 64-bit xxHash of bytes.
std::uint64_t hash64(std::string_view bytes);

/// 128-bit xxHash of bytes as 32 lowercase hex digits: the key of content-addressed caches.
std::string content_hash(std::string_view bytes);

/// 16 lowercase hex digits of a 64-bit value.
std::string to_hex(std::uint64_t value);

}  // namespace fastci::util
