#pragma once
/// What `fastci ingest` calls: read evidence files of any known format into a store, one
/// transaction per file.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "evidence/store/store.h"

namespace fastci::evidence {

/// What ingesting one file did.
struct FileIngestSummary {
  std::filesystem::path file;         ///< the file, or the first file of a pytest session
  std::size_t session_files = 1;      ///< files of the session stored together as this one run
  std::string format;                 ///< the reader used (given or detected)
  std::int64_t run_id = 0;
  std::size_t tests = 0;
  std::size_t files = 0;              ///< distinct covered source files
  std::size_t coverage_rows = 0;
  std::size_t contexts = 0;
  std::size_t kernels = 0;
  std::vector<Warning> warnings;      ///< each with the input's file:line where known
  std::optional<util::Error> error;   ///< set when the file was rejected (nothing of it was stored)
};

/// What ingesting all files did.
struct IngestSummary {
  std::vector<FileIngestSummary> files;
  /// How many files were rejected.
  std::size_t failed() const;
};

/// Ingests each file in its own transaction with the reader named `format` ("auto" detects it per
/// file); fastci JSONL files of one pytest session (the same `run.session`) go in together as one
/// run. A file (or session) that cannot be read is rolled back and reported in its summary; the
/// others are still ingested. Fails only when `format` names no reader.
util::Result<IngestSummary> ingest_files(Store& store, const std::vector<std::filesystem::path>& files,
                                         const std::string& format, const IngestOptions& options);

/// One line per file ("file: format, N tests, ...") plus its warnings and error, for the CLI.
std::string format_summary(const IngestSummary& summary);

}  // namespace fastci::evidence
