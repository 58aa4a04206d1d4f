#include "evidence/ingest/nsys_reader.h"

#include <sqlite3.h>

#include <memory>
#include <set>
#include <unordered_map>

#include "evidence/ingest/kineto_kernels.h"

namespace fastci::evidence {

namespace {

constexpr int kNvtxPushPopRange = 59;   // ENUM_NSYS_EVENT_TYPE
constexpr int kNvtxStartEndRange = 60;
constexpr int kGlobalIdTidBits = 24;  // serialised GlobalId: ... | pid << 24 | tid

using Database = std::unique_ptr<sqlite3, decltype(&sqlite3_close)>;
using Statement = std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)>;

util::Result<Database> open_read_only(const std::filesystem::path& file) {
  sqlite3* raw = nullptr;
  const int code = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Database database(raw, &sqlite3_close);
  if (code != SQLITE_OK) {
    return util::Error{std::string("cannot open as SQLite: ") + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(code)),
                       file.string(), 0};
  }
  return database;
}

util::Result<Statement> prepare(sqlite3* database, const std::string& sql, const std::string& file) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(database, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    return util::Error{std::string("SQLite: ") + sqlite3_errmsg(database) + "; expected an Nsight Systems SQLite export",
                       file, 0};
  }
  return Statement(raw, &sqlite3_finalize);
}

/// Table name -> its column names.
util::Result<std::unordered_map<std::string, std::set<std::string>>> read_schema(sqlite3* database, const std::string& file) {
  auto tables = prepare(database, "SELECT name FROM sqlite_master WHERE type = 'table'", file);
  if (!tables) return tables.error();
  std::unordered_map<std::string, std::set<std::string>> schema;
  int code = 0;
  while ((code = sqlite3_step(tables->get())) == SQLITE_ROW) {
    const auto* name = reinterpret_cast<const char*>(sqlite3_column_text(tables->get(), 0));
    if (name != nullptr) schema[name];
  }
  if (code != SQLITE_DONE) return util::Error{std::string("SQLite: ") + sqlite3_errmsg(database), file, 0};
  for (auto& [table, columns] : schema) {
    auto info = prepare(database, "SELECT name FROM pragma_table_info(?)", file);
    if (!info) return info.error();
    sqlite3_bind_text(info->get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(info->get()) == SQLITE_ROW) {
      const auto* column = reinterpret_cast<const char*>(sqlite3_column_text(info->get(), 0));
      if (column != nullptr) columns.insert(column);
    }
  }
  return schema;
}

bool has_all(const std::set<std::string>& columns, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (!columns.contains(name)) return false;
  }
  return true;
}

class NsysParser {
 public:
  NsysParser(const std::filesystem::path& file, EvidenceSink& sink, const NsysOptions& options)
      : path_(file), file_(file.string()), sink_(sink), options_(options) {}

  util::Status run() {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path_, ec)) return util::Error{"no such file", file_, 0};
    auto database = open_read_only(path_);
    if (!database) return database.error();
    database_ = database->get();
    auto schema = read_schema(database_, file_);
    if (!schema) return schema.error();
    schema_ = std::move(*schema);
    if (!schema_.contains("StringIds")) {
      return util::Error{"no StringIds table; expected an Nsight Systems SQLite export (nsys export --type sqlite)", file_, 0};
    }
    Run run;
    run.source_format = "nsys-sqlite";
    run.source_file = file_;
    sink_.begin_run(run);
    const auto kernels = schema_.find("CUPTI_ACTIVITY_KIND_KERNEL");
    if (kernels == schema_.end()) {
      // nsys creates tables lazily: no table means no kernel ran while CUDA was traced.
      sink_.warn(Warning{file_, 0, "no CUPTI_ACTIVITY_KIND_KERNEL table: the capture holds no CUDA kernels"});
      return {};
    }
    if (!has_all(kernels->second, {"start", "end"})) {
      return util::Error{"CUPTI_ACTIVITY_KIND_KERNEL lacks start/end columns; expected the nsys export schema", file_, 0};
    }
    const bool whole_file = !options_.test_id.empty();
    if (!whole_file) {
      if (auto status = read_ranges(); !status) return status;
    }
    if (auto status = read_kernels(kernels->second, whole_file); !status) return status;
    if (!whole_file && table_.launches() > 0) {
      if (ranges_.size() == 0) {
        sink_.warn(Warning{file_, 0, "no NVTX range names a test and no test id was given: " +
                                         std::to_string(table_.launches()) + " kernel launches recorded outside any test"});
      } else if (unmatched_ > 0) {
        sink_.warn(Warning{file_, 0, std::to_string(unmatched_) + " kernel launches have no runtime call with their "
                                                                  "correlationId; recorded outside any test"});
      }
    }
    table_.emit(sink_);
    return {};
  }

 private:
  std::uint32_t process_of(std::int64_t global_tid) {
    const std::int64_t pid = global_tid >> kGlobalIdTidBits;
    return processes_.try_emplace(pid, static_cast<std::uint32_t>(processes_.size())).first->second;
  }
  std::uint32_t thread_of(std::int64_t global_tid) {
    return threads_.try_emplace(global_tid, static_cast<std::uint32_t>(threads_.size())).first->second;
  }

  util::Status read_ranges() {
    const auto nvtx = schema_.find("NVTX_EVENTS");
    if (nvtx == schema_.end() || !options_.test_id_of_range) return {};
    if (!has_all(nvtx->second, {"start", "end", "eventType", "globalTid"})) return {};
    const bool has_text = nvtx->second.contains("text");
    const bool has_text_id = nvtx->second.contains("textId");
    if (!has_text && !has_text_id) return {};
    const std::string text = has_text && has_text_id ? "COALESCE(n.text, s.value)" : has_text ? "n.text" : "s.value";
    const std::string sql = "SELECT n.start, n.end, " + text + ", n.globalTid FROM NVTX_EVENTS n " +
                            (has_text_id ? "LEFT JOIN StringIds s ON s.id = n.textId " : "") +
                            "WHERE n.eventType IN (" + std::to_string(kNvtxPushPopRange) + ", " +
                            std::to_string(kNvtxStartEndRange) + ") AND n.end IS NOT NULL";
    auto statement = prepare(database_, sql, file_);
    if (!statement) return statement.error();
    int code = 0;
    while ((code = sqlite3_step(statement->get())) == SQLITE_ROW) {
      sqlite3_stmt* row = statement->get();
      const auto* name = reinterpret_cast<const char*>(sqlite3_column_text(row, 2));
      if (name == nullptr) continue;
      const auto test = options_.test_id_of_range(name);
      if (!test) continue;
      const std::int64_t global_tid = sqlite3_column_int64(row, 3);
      ranges_.add(process_of(global_tid), thread_of(global_tid), static_cast<double>(sqlite3_column_int64(row, 0)),
                  static_cast<double>(sqlite3_column_int64(row, 1)), table_.intern_test(*test));
    }
    if (code != SQLITE_DONE) return util::Error{std::string("SQLite: ") + sqlite3_errmsg(database_), file_, 0};
    ranges_.sort();
    return {};
  }

  util::Status read_kernels(const std::set<std::string>& columns, bool whole_file) {
    std::string name_column;
    for (const char* candidate : {"demangledName", "shortName", "name"}) {
      if (columns.contains(candidate)) {
        name_column = candidate;
        break;
      }
    }
    if (name_column.empty()) {
      return util::Error{"CUPTI_ACTIVITY_KIND_KERNEL has no demangledName/shortName column; expected the nsys export schema",
                         file_, 0};
    }
    const bool has_dims = has_all(columns, {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"});
    const bool has_shared = has_all(columns, {"staticSharedMemory", "dynamicSharedMemory"});
    const auto runtime = schema_.find("CUPTI_ACTIVITY_KIND_RUNTIME");
    const bool join_runtime = !whole_file && runtime != schema_.end() && columns.contains("correlationId") &&
                              has_all(runtime->second, {"start", "globalTid", "correlationId"});
    const bool same_process = join_runtime && columns.contains("globalPid");
    std::string sql = "SELECT k.start, k.end, s.value, ";
    sql += has_dims ? "k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ, " : "0, 0, 0, 0, 0, 0, ";
    sql += has_shared ? "k.staticSharedMemory + k.dynamicSharedMemory, " : "0, ";
    sql += join_runtime ? "r.start, r.globalTid " : "NULL, NULL ";
    sql += "FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds s ON s.id = k." + name_column + " ";
    if (join_runtime) {
      sql += "LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId";
      // correlation ids are unique per process only
      if (same_process) sql += " AND (r.globalTid >> " + std::to_string(kGlobalIdTidBits) + ") = (k.globalPid >> " +
                               std::to_string(kGlobalIdTidBits) + ")";
    }
    auto statement = prepare(database_, sql, file_);
    if (!statement) return statement.error();
    const std::uint32_t file_test = table_.intern_test(options_.test_id);
    int code = 0;
    std::uint64_t row_number = 0;
    while ((code = sqlite3_step(statement->get())) == SQLITE_ROW) {
      sqlite3_stmt* row = statement->get();
      ++row_number;
      const auto* name = reinterpret_cast<const char*>(sqlite3_column_text(row, 2));
      if (name == nullptr) {
        sink_.warn(Warning{file_, 0, "kernel row " + std::to_string(row_number) + " names no StringIds entry; skipped"});
        continue;
      }
      KernelConfig config;
      config.name = demangle_kernel_name(name);
      if (has_dims) {
        config.grid = dimensions_text(sqlite3_column_int64(row, 3), sqlite3_column_int64(row, 4), sqlite3_column_int64(row, 5));
        config.block = dimensions_text(sqlite3_column_int64(row, 6), sqlite3_column_int64(row, 7), sqlite3_column_int64(row, 8));
      }
      const std::int64_t shared = sqlite3_column_int64(row, 9);
      config.shared_memory = shared > 0 ? static_cast<std::uint64_t>(shared) : 0;
      const std::int64_t start = sqlite3_column_int64(row, 0), end = sqlite3_column_int64(row, 1);
      const double duration_us = end > start ? static_cast<double>(end - start) / 1000.0 : 0.0;
      std::uint32_t test = file_test;
      if (!whole_file) {
        std::optional<std::uint32_t> found;
        if (sqlite3_column_type(row, 11) != SQLITE_NULL) {
          const std::int64_t global_tid = sqlite3_column_int64(row, 11);
          found = ranges_.find(process_of(global_tid), thread_of(global_tid),
                               static_cast<double>(sqlite3_column_int64(row, 10)));
        } else {
          ++unmatched_;
        }
        test = found.value_or(file_test);
      }
      table_.add(test, table_.intern(config), duration_us);
    }
    if (code != SQLITE_DONE) return util::Error{std::string("SQLite: ") + sqlite3_errmsg(database_), file_, 0};
    return {};
  }

  std::filesystem::path path_;
  std::string file_;
  EvidenceSink& sink_;
  const NsysOptions& options_;
  sqlite3* database_ = nullptr;
  std::unordered_map<std::string, std::set<std::string>> schema_;
  KernelTable table_;
  TestRangeIndex ranges_;
  std::unordered_map<std::int64_t, std::uint32_t> processes_;
  std::unordered_map<std::int64_t, std::uint32_t> threads_;
  std::uint64_t unmatched_ = 0;
};

}  // namespace

util::Status read_nsys(const std::filesystem::path& file, EvidenceSink& sink, const NsysOptions& options) {
  return NsysParser(file, sink, options).run();
}

util::Status read_nsys(const std::filesystem::path& file, EvidenceSink& sink) {
  return read_nsys(file, sink, NsysOptions{});
}

bool sniff_nsys(std::string_view head, const std::filesystem::path& file) {
  if (!head.starts_with(std::string_view("SQLite format 3\0", 16))) return false;
  auto database = open_read_only(file);
  if (!database) return false;
  auto schema = read_schema(database->get(), file.string());
  if (!schema || !schema->contains("StringIds")) return false;
  for (const auto& [table, columns] : *schema) {
    if (table.starts_with("CUPTI_ACTIVITY_KIND_") || table == "NVTX_EVENTS" || table.starts_with("TARGET_INFO_")) return true;
  }
  return false;
}

}  // namespace fastci::evidence
