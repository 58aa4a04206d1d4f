#include "evidence/store/ingest_files.h"

#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "evidence/ingest/reader.h"

namespace fastci::evidence {

std::size_t IngestSummary::failed() const {
  std::size_t count = 0;
  for (const FileIngestSummary& file : files) count += file.error ? 1 : 0;
  return count;
}

namespace {

std::string known_formats() {
  std::string names;
  for (const ReaderInfo& reader : readers()) names += (names.empty() ? "" : ", ") + reader.name;
  return names;
}

/// What the store says it ingested, in the summary of the file (or session).
void record_result(IngestResult result, FileIngestSummary& summary) {
  summary.run_id = result.run_id;
  summary.tests = result.tests;
  summary.files = result.files;
  summary.coverage_rows = result.coverage_rows;
  summary.contexts = result.contexts;
  summary.kernels = result.kernels;
  summary.warnings = std::move(result.warnings);
}

FileIngestSummary ingest_one(Store& store, const std::filesystem::path& file, const ReaderInfo* reader,
                             const IngestOptions& options) {
  FileIngestSummary summary;
  summary.file = file;
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) {
    summary.error = util::Error{std::filesystem::exists(file, error) ? "not a regular file" : "no such file",
                                file.string(), 0};
    return summary;
  }
  if (!reader) reader = detect_format(file);
  if (!reader) {
    summary.error = util::Error{"unknown evidence format (known: " + known_formats() + "); pass --format",
                                file.string(), 0};
    return summary;
  }
  summary.format = reader->name;
  auto read = reader->read;
  auto result = store.ingest([&](EvidenceSink& sink) { return read(file, sink); }, reader->name,
                             file.string(), options);
  if (!result) {
    summary.error = result.error();
    return summary;
  }
  record_result(std::move(*result), summary);
  return summary;
}

/// The `session` of a fastci JSONL file's opening run record; empty for other files.
std::string session_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line) || line.size() > (1u << 20)) return {};
  auto record = nlohmann::json::parse(line, nullptr, false);
  if (record.is_discarded() || !record.is_object() || record.value("type", "") != "run") return {};
  auto session = record.find("session");
  return session != record.end() && session->is_string() ? session->get<std::string>() : std::string();
}

/// The files of one pytest session in one transaction and one run: worker files complete the
/// evidence of tests whose outcome the pytest process recorded.
FileIngestSummary ingest_session(Store& store, const std::vector<std::filesystem::path>& files,
                                 const ReaderInfo& reader, const IngestOptions& options) {
  FileIngestSummary summary;
  summary.file = files.front();
  summary.format = reader.name;
  auto result = store.ingest(
      [&](EvidenceSink& sink) -> util::Status {
        for (const auto& file : files)
          if (auto status = reader.read(file, sink); !status) return status;
        return {};
      },
      reader.name, files.front().string(), options);
  if (!result) {
    summary.error = result.error();
    return summary;
  }
  summary.session_files = files.size();
  record_result(std::move(*result), summary);
  return summary;
}

}  // namespace

util::Result<IngestSummary> ingest_files(Store& store, const std::vector<std::filesystem::path>& files,
                                         const std::string& format, const IngestOptions& options) {
  const ReaderInfo* reader = nullptr;
  if (format != "auto" && !format.empty()) {
    reader = find_reader(format);
    if (!reader) return util::Error{"unknown evidence format '" + format + "' (known: " + known_formats() + ")"};
  }
  IngestSummary summary;
  const ReaderInfo* jsonl = find_reader("fastci-jsonl");
  std::map<std::string, std::vector<std::filesystem::path>> sessions;
  std::vector<std::string> session_order;
  for (const std::filesystem::path& file : files) {
    std::error_code error;
    bool jsonl_file = std::filesystem::is_regular_file(file, error) &&
                      (reader ? reader == jsonl : detect_format(file) == jsonl);
    std::string session = jsonl_file ? session_of(file) : std::string();
    if (session.empty()) {
      summary.files.push_back(ingest_one(store, file, reader, options));
      continue;
    }
    if (!sessions.count(session)) session_order.push_back(session);
    sessions[session].push_back(file);
  }
  for (const auto& session : session_order)
    summary.files.push_back(ingest_session(store, sessions[session], *jsonl, options));
  return summary;
}

std::string format_summary(const IngestSummary& summary) {
  std::ostringstream out;
  for (const FileIngestSummary& file : summary.files) {
    if (file.error) {
      out << "error: " << file.error->to_string() << "\n";
      continue;
    }
    out << file.file.string();
    if (file.session_files > 1) out << " and " << file.session_files - 1 << " more files of its session";
    out << ": " << file.format << ", run " << file.run_id << ", " << file.tests << " tests, "
        << file.files << " files, " << file.coverage_rows << " coverage rows, " << file.contexts << " contexts, "
        << file.kernels << " kernels\n";
    for (const Warning& warning : file.warnings) {
      out << "  warning: " << warning.file;
      if (warning.line > 0) out << ":" << warning.line;
      out << ": " << warning.message << "\n";
    }
  }
  return out.str();
}

}  // namespace fastci::evidence
