#pragma once
/// The reader interface every evidence format implements, and the registry that names them all.
///
/// A reader streams one file into an EvidenceSink: begin_run() once, then add_test() per test (it
/// may repeat an id; the sink merges), warn() for problems it can skip. It returns an Error (with
/// file and line) for input it cannot read at all; the store then rolls the whole file back.
/// Each format has `util::Status read_<format>(const std::filesystem::path&, EvidenceSink&)` in
/// its own <format>.h and one line in reader.cc's table.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// Streams one file of one format into a sink.
using ReadFunction = util::Status (*)(const std::filesystem::path& file, EvidenceSink& sink);
/// Whether a file looks like this format, from its first bytes (up to kSniffBytes) and its name.
using SniffFunction = bool (*)(std::string_view head, const std::filesystem::path& file);

/// One registered evidence format.
struct ReaderInfo {
  std::string name;   ///< format name used by `--format`: "coveragepy-sqlite", "junit", ...
  SniffFunction sniff;
  ReadFunction read;
};

/// How many leading bytes detect_format() hands to each sniff function.
inline constexpr std::size_t kSniffBytes = 4096;

/// Every known reader, in detection order (most specific first).
const std::vector<ReaderInfo>& readers();

/// The reader registered under `name`, or nullptr.
const ReaderInfo* find_reader(std::string_view name);

/// The first reader whose sniff accepts the file, or nullptr when none does or it cannot be read.
const ReaderInfo* detect_format(const std::filesystem::path& file);

}  // namespace fastci::evidence
