#include "evidence/ingest/reader.h"

#include <fstream>

#include "evidence/ingest/coveragepy_json.h"
#include "evidence/ingest/coveragepy_sqlite.h"
#include "evidence/ingest/fastci_jsonl_reader.h"
#include "evidence/ingest/gcov_json_reader.h"
#include "evidence/ingest/junit_xml.h"
#include "evidence/ingest/kineto_reader.h"
#include "evidence/ingest/lcov_reader.h"
#include "evidence/ingest/llvm_cov_reader.h"
#include "evidence/ingest/nsys_reader.h"

namespace fastci::evidence {

const std::vector<ReaderInfo>& readers() {
  // One line per format; detection tries them in this order, so specific formats come first.
  static const std::vector<ReaderInfo> table = {
      {"fastci-jsonl", sniff_fastci_jsonl, read_fastci_jsonl},
      {"coveragepy-sqlite", sniff_coveragepy_sqlite, read_coveragepy_sqlite},
      {"coveragepy-json", sniff_coveragepy_json, read_coveragepy_json},
      {"junit", sniff_junit, read_junit},
      {"nsys-sqlite", sniff_nsys, read_nsys},
      {"kineto", sniff_kineto, read_kineto},
      {"llvm-cov", sniff_llvm_cov, read_llvm_cov},
      {"gcov-json", sniff_gcov_json, read_gcov_json},
      {"lcov", sniff_lcov, read_lcov},
  };
  return table;
}

const ReaderInfo* find_reader(std::string_view name) {
  for (const ReaderInfo& reader : readers()) {
    if (reader.name == name) return &reader;
  }
  return nullptr;
}

const ReaderInfo* detect_format(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return nullptr;
  std::string head(kSniffBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  for (const ReaderInfo& reader : readers()) {
    if (reader.sniff && reader.sniff(head, file)) return &reader;
  }
  return nullptr;
}

}  // namespace fastci::evidence
