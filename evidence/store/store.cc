#include "evidence/store/store.h"

#include <sstream>

#include "evidence/store/sql_connection.h"
#include "evidence/store/sql_store.h"
#include "util/state_dir.h"

namespace fastci::evidence {

namespace {

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

std::string human_bytes(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  std::ostringstream out;
  out.precision(unit == 0 ? 0 : 1);
  out << std::fixed << value << ' ' << units[unit];
  return out.str();
}

}  // namespace

std::filesystem::path Store::default_path(const std::filesystem::path& repository_root) {
  return util::state_dir(repository_root) / "evidence.db";
}

util::Result<std::unique_ptr<Store>> Store::open(const std::string& url) {
  if (starts_with(url, "postgresql://") || starts_with(url, "postgres://")) {
#ifdef FASTCI_WITH_POSTGRESQL
    auto connection = open_postgresql(url);
    if (!connection) return connection.error();
    return make_sql_store(std::move(*connection));
#else
    return util::Error{"this fastci was built without PostgreSQL support (FASTCI_WITH_POSTGRESQL=OFF)",
                       redact_url(url), 0};
#endif
  }
  std::string path = url;
  if (starts_with(url, "sqlite://")) {
    path = url.substr(std::string_view("sqlite://").size());
  } else if (url.find("://") != std::string::npos) {
    return util::Error{"unknown evidence store URL scheme (expected sqlite:///path, a file path, "
                       "postgresql://... or postgres://...)",
                       redact_url(url), 0};
  }
  if (path.empty()) return util::Error{"empty evidence store path", url, 0};
  auto connection = open_sqlite(path);
  if (!connection) return connection.error();
  return make_sql_store(std::move(*connection));
}

std::string format_stats(const StoreStats& stats) {
  std::ostringstream out;
  out << "evidence store: " << stats.location << " (" << stats.backend << ", schema " << stats.schema_version
      << ")\n"
      << "  runs:          " << stats.runs << "\n"
      << "  tests:         " << stats.tests << "\n"
      << "  files:         " << stats.files << "\n"
      << "  results:       " << stats.results << "\n"
      << "  coverage rows: " << stats.coverage_rows << "\n"
      << "  contexts:      " << stats.contexts << "\n"
      << "  kernels:       " << stats.kernels << "\n"
      << "  knob values:   " << stats.knob_values << "\n"
      << "  size:          " << human_bytes(stats.bytes) << "\n";
  return out.str();
}

}  // namespace fastci::evidence
