#pragma once
/// Reading files and walking a repository safely: nothing outside the repository root is followed.

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "util/result.h"

namespace fastci::util {

/// Reads a whole file; fails with a message naming the file.
Result<std::string> read_file(const std::filesystem::path& path);

/// Writes a file atomically (temporary file in the same folder, then rename).
Status write_file_atomically(const std::filesystem::path& path, std::string_view content);
/// Writes what `write` puts on the stream atomically, without holding the whole text.
Status write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);
/// Copies a file atomically (a reader of `to` sees the old file or the whole new one).
Status copy_file_atomically(const std::filesystem::path& from, const std::filesystem::path& to);

/// Whether `path`, with symlinks resolved, stays inside `root`.
bool is_inside(const std::filesystem::path& root, const std::filesystem::path& path);

/// Whether bytes look like text: valid UTF-8 and no NUL byte.
bool is_valid_utf8(std::string_view bytes);

}  // namespace fastci::util
