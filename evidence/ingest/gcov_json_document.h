#pragma once
/// Loading a (possibly gzipped) JSON coverage export whole, padded for simdjson.

#include <simdjson.h>

#include <filesystem>

#include "util/result.h"

namespace fastci::evidence {

/// The file's bytes, inflated when gzipped, with simdjson's padding.
util::Result<simdjson::padded_string> load_padded(const std::filesystem::path& file);

/// 1-based line of byte `offset` in `text`.
int line_at(std::string_view text, std::size_t offset);

}  // namespace fastci::evidence
