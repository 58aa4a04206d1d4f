#pragma once
/// Chunked reading of plain or gzip-compressed evidence files (gcov writes .gcov.json.gz, lcov
/// tracefiles and profiler traces are often gzipped), so that readers never hold a whole file.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace fastci::evidence {

/// A file read front to back in chunks, inflated on the fly when it starts with the gzip magic.
class FileInput {
 public:
  /// Opens `path`; fails with a message naming the file.
  static util::Result<std::unique_ptr<FileInput>> open(const std::filesystem::path& path);
  ~FileInput();
  FileInput(const FileInput&) = delete;
  FileInput& operator=(const FileInput&) = delete;

  /// Reads up to `capacity` bytes; 0 at the end; an error for an unreadable or corrupt file.
  util::Result<std::size_t> read(char* buffer, std::size_t capacity);
  /// The file as given to open().
  const std::filesystem::path& path() const { return path_; }

 private:
  FileInput(std::filesystem::path path, void* handle) : path_(std::move(path)), handle_(handle) {}
  std::filesystem::path path_;
  void* handle_;  // gzFile; zlib reads plain files through unchanged
};

/// Reads a text file line by line (plain or gzip), counting lines from 1.
class LineInput {
 public:
  /// Opens `path`; fails with a message naming the file.
  static util::Result<std::unique_ptr<LineInput>> open(const std::filesystem::path& path);

  /// Next line without its "\n" or "\r\n"; false at the end of the file or on error (see error()).
  bool next(std::string_view& line);
  /// 1-based number of the line last returned by next().
  int line_number() const { return line_number_; }
  /// Set when next() returned false because the file could not be read.
  const std::optional<util::Error>& error() const { return error_; }

 private:
  explicit LineInput(std::unique_ptr<FileInput> input) : input_(std::move(input)) {}
  bool refill();
  std::unique_ptr<FileInput> input_;
  std::string buffer_;
  std::size_t position_ = 0;
  bool at_end_ = false;
  int line_number_ = 0;
  std::optional<util::Error> error_;
};

/// The text a file head stands for: inflated as far as it goes when it is a gzip prefix.
std::string inflate_head(std::string_view head);

/// Whether bytes start with the gzip magic number.
bool is_gzip(std::string_view bytes);

}  // namespace fastci::evidence
