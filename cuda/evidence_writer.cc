#include "cuda/evidence_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <tuple>

namespace fastci::cuda {
namespace {

std::string dims(const abi::Dim3& value) {
  return std::to_string(value.x) + "," + std::to_string(value.y) + "," + std::to_string(value.z);
}

/// The first words of /proc/self/cmdline, to tell the processes of one run apart.
std::string command_line() {
  std::string text;
  int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[512];
  ssize_t got = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  for (ssize_t i = 0; i < got; ++i) text.push_back(buffer[i] == '\0' ? ' ' : buffer[i]);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", c);
          out += escape;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out += '"';
  return out;
}

std::string format_run_line(const RunInfo& run) {
  std::string line = "{\"type\":\"run\",\"schema\":1,\"commit\":" + json_quote(run.commit) +
                     ",\"started_at\":" + json_quote(run.started_at) + ",\"runner\":" + json_quote(run.runner) +
                     ",\"environment\":{";
  for (std::size_t i = 0; i < run.environment.size(); ++i) {
    if (i) line += ',';
    line += json_quote(run.environment[i].first) + ":" + json_quote(run.environment[i].second);
  }
  line += "},\"collector\":" + json_quote(run.collector) + "}";
  return line;
}

std::string format_kernel_line(const KernelRecord& record) {
  std::string line = "{\"type\":\"kernel\",\"test\":" + json_quote(record.test) +
                     ",\"name\":" + json_quote(record.name.demangled) + ",\"grid\":" + json_quote(dims(record.grid)) +
                     ",\"block\":" + json_quote(dims(record.block)) +
                     ",\"shared_memory\":" + std::to_string(record.shared_memory) + ",\"template_arguments\":[";
  for (std::size_t i = 0; i < record.name.template_arguments.size(); ++i) {
    if (i) line += ',';
    line += json_quote(record.name.template_arguments[i]);
  }
  line += "],\"count\":" + std::to_string(record.count);
  if (record.timed) {
    char duration[64];
    std::snprintf(duration, sizeof duration, "%.3f", record.total_duration_us);
    line += ",\"total_duration_us\":";
    line += duration;
  }
  line += ",\"function\":" + json_quote(record.name.function) + ",\"mangled\":" + json_quote(record.name.mangled) + "}";
  return line;
}

std::vector<KernelRecord> kernel_records(const std::vector<std::pair<LaunchKey, LaunchTotals>>& launches,
                                         const std::vector<std::string>& tests,
                                         const std::vector<std::string>& kernels, bool timed) {
  std::vector<KernelName> described(kernels.size());
  std::vector<bool> done(kernels.size(), false);
  std::vector<KernelRecord> records;
  records.reserve(launches.size());
  for (const auto& [key, totals] : launches) {
    KernelRecord record;
    record.test = key.test < tests.size() ? tests[key.test] : std::string();
    if (key.kernel < kernels.size()) {
      if (!done[key.kernel]) {
        described[key.kernel] = describe_kernel(kernels[key.kernel]);
        done[key.kernel] = true;
      }
      record.name = described[key.kernel];
    }
    record.grid = key.grid;
    record.block = key.block;
    record.shared_memory = key.shared_memory;
    record.count = totals.count;
    record.total_duration_us = totals.duration_us;
    record.timed = timed;
    records.push_back(std::move(record));
  }
  auto order = [](const KernelRecord& r) {
    return std::tie(r.test, r.name.demangled, r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y, r.block.z,
                    r.shared_memory);
  };
  std::sort(records.begin(), records.end(),
            [&](const KernelRecord& a, const KernelRecord& b) { return order(a) < order(b); });
  return records;
}

std::string format_evidence(const RunInfo& run, const std::vector<KernelRecord>& records) {
  std::string text = format_run_line(run) + "\n";
  for (const KernelRecord& record : records) text += format_kernel_line(record) + "\n";
  return text;
}

util::Status write_file_atomically(const std::string& path, std::string_view content) {
  std::string temporary = path + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return util::Error{std::string("cannot create: ") + std::strerror(errno), temporary};
  std::size_t written = 0;
  while (written < content.size()) {
    ssize_t got = ::write(fd, content.data() + written, content.size() - written);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      return util::Error{std::string("cannot write: ") + std::strerror(error), temporary};
    }
    written += static_cast<std::size_t>(got);
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temporary.c_str());
    return util::Error{std::string("cannot rename into place: ") + std::strerror(error), path};
  }
  return {};
}

bool make_directories(const std::string& directory) {
  for (std::size_t slash = directory.find('/', 1);; slash = directory.find('/', slash + 1)) {
    std::string prefix = directory.substr(0, slash);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) break;
  }
  struct stat info {};
  return ::stat(directory.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string evidence_path(std::string_view directory, std::string_view tag, long pid) {
  std::string path(directory);
  if (!path.empty() && path.back() != '/') path += '/';
  path += "fastci-";
  path += tag;
  path += "-" + std::to_string(pid) + ".jsonl";
  return path;
}

std::string iso8601_utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

RunInfo describe_process(std::string collector, std::string started_at) {
  RunInfo run;
  run.collector = std::move(collector);
  run.started_at = std::move(started_at);
  if (const char* commit = std::getenv("FASTCI_COMMIT")) run.commit = commit;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) run.runner = host;
  run.environment.emplace_back("pid", std::to_string(::getpid()));
  run.environment.emplace_back("command", command_line());
  return run;
}

}  // namespace fastci::cuda
