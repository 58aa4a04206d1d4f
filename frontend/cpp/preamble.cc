#include "frontend/cpp/preamble.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>

#include <unistd.h>

#include "frontend/cpp/stub_headers.h"
#include "util/hash.h"

namespace fastci::frontend::cpp {
namespace {

namespace fs = std::filesystem;

/// Units of one set of options a call must parse before a missing preamble is worth building:
/// a CUDA preamble costs about 1.7 s of CPU to build and saves about 0.4-0.6 s a unit.
constexpr int kUnitsWorthABuild = 3;

/// The virtual header the preamble is built from. Only standard headers: every unit may include
/// them without changing its meaning (they are guarded and declare nothing a unit defines), which
/// is not true of the torch and pybind11 stubs (a unit without them must not see them).
constexpr const char* kPreamblePath = "/fastci-preamble/preamble.h";
constexpr const char* kPreambleText =
    "#include <algorithm>\n#include <array>\n#include <atomic>\n#include <cassert>\n#include <cmath>\n"
    "#include <cstddef>\n#include <cstdint>\n#include <cstring>\n#include <functional>\n"
    "#include <initializer_list>\n#include <iostream>\n#include <iterator>\n#include <limits>\n"
    "#include <map>\n#include <memory>\n#include <mutex>\n#include <numeric>\n#include <optional>\n"
    "#include <ostream>\n#include <set>\n#include <sstream>\n#include <stdexcept>\n#include <string>\n"
    "#include <thread>\n#include <tuple>\n#include <type_traits>\n#include <unordered_map>\n"
    "#include <unordered_set>\n#include <utility>\n#include <vector>\n";

/// Everything a preamble's bytes depend on besides its options: the compiler and the stubs' text
/// (the stub folder is on the include path; its headers are not in the preamble, but a changed pack
/// must not meet a preamble built beside the old one).
const std::string& build_identity() {
  static const std::string identity = [] {
    std::string text = clang::getClangFullVersion() + "\n" + kPreambleText;
    for (const StubHeader& stub : stub_headers()) text += std::string(stub.path) + "\n" + std::string(stub.contents);
    return util::content_hash(text);
  }();
  return identity;
}

/// Swallows diagnostics while a preamble is built; counts errors.
class CountingDiagnostics : public clang::DiagnosticConsumer {
 public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level >= clang::DiagnosticsEngine::Error) ++errors;
  }
  int errors = 0;
};

}  // namespace

std::optional<std::vector<std::string>> preamble_options(const std::vector<std::string>& command_line) {
  if (command_line.size() < 2) return std::nullopt;
  std::vector<std::string> out;
  bool language_known = false;
  for (std::size_t i = 0; i + 1 < command_line.size(); ++i) {
    const std::string& a = command_line[i];
    if (a == "-x" && i + 2 < command_line.size()) {
      const std::string& language = command_line[i + 1];
      if (language != "c++" && language != "cuda") return std::nullopt;
      language_known = true;
    }
    if (a == "-fsyntax-only") continue;
    if (a == "-I" || a == "-iquote") {
      ++i;
      continue;
    }
    if (a.starts_with("-I") || a.starts_with("-iquote")) continue;
    out.push_back(a);
  }
  if (!language_known) return std::nullopt;
  return out;
}

void add_preamble_header(llvm::vfs::InMemoryFileSystem& files) {
  files.addFile(kPreamblePath, 0, llvm::MemoryBuffer::getMemBuffer(kPreambleText, kPreamblePath, false));
}

bool preamble_rejected(const std::string& message) {
  return message.find("precompiled header") != std::string::npos || message.find("PCH file") != std::string::npos ||
         message.find("AST file") != std::string::npos;
}

PreambleCache::PreambleCache(std::optional<fs::path> directory, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> files)
    : files_(std::move(files)) {
  std::error_code error;
  if (directory) {
    directory_ = *directory;
    fs::create_directories(directory_, error);
  } else {
    std::string pattern = (fs::temp_directory_path(error) / "fastci-preamble-XXXXXX").string();
    if (char* made = mkdtemp(pattern.data())) {
      directory_ = made;
      temporary_ = true;
    }
  }
}

PreambleCache::~PreambleCache() {
  std::error_code error;
  if (temporary_) fs::remove_all(directory_, error);
}

std::string PreambleCache::name_of(const std::vector<std::string>& options) {
  std::string key = build_identity();
  for (const std::string& option : options) key += '\n' + option;
  return "preamble-" + util::content_hash(key) + ".pch";
}

void PreambleCache::expect(const std::vector<std::string>& command_line) {
  if (auto options = preamble_options(command_line)) {
    std::lock_guard lock(mutex_);
    ++expected_[name_of(*options)];
  }
}

std::optional<std::string> PreambleCache::preamble_for(const std::vector<std::string>& command_line) {
  if (directory_.empty()) return std::nullopt;
  auto options = preamble_options(command_line);
  if (!options) return std::nullopt;
  const std::string name = name_of(*options);
  // One build per preamble; units that need it meanwhile wait (it is a fraction of one unit's time).
  std::lock_guard lock(mutex_);
  if (auto found = built_.find(name); found != built_.end()) return found->second;
  const fs::path path = directory_ / name;
  std::error_code error;
  std::optional<std::string> result;
  if (fs::is_regular_file(path, error) && fs::file_size(path, error) > 0) {
    result = path.string();
  } else if (expected_[name] < kUnitsWorthABuild) {
    // Building costs about as much as three units save; a call with fewer parses them in full.
    return std::nullopt;
  } else {
    result = build(*options, path);
  }
  built_[name] = result;
  return result;
}

void PreambleCache::discard(const std::string& path) {
  std::lock_guard lock(mutex_);
  std::error_code error;
  fs::remove(path, error);
  built_[fs::path(path).filename().string()] = std::nullopt;  // not again in this run
}

std::optional<std::string> PreambleCache::build(const std::vector<std::string>& options, const fs::path& output) {
  // Written beside its final name and renamed, so a reader never sees half a file.
  const fs::path partial = output.string() + ".part-" + std::to_string(getpid());
  std::vector<std::string> arguments = options;
  for (const char* a : {"-fsyntax-only", "-Xclang", "-o", "-Xclang"}) arguments.emplace_back(a);
  arguments.push_back(partial.string());
  arguments.emplace_back(kPreamblePath);
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), files_);
  CountingDiagnostics diagnostics;
  clang::tooling::ToolInvocation invocation(arguments, std::make_unique<clang::GeneratePCHAction>(), files.get());
  invocation.setDiagnosticConsumer(&diagnostics);
  const bool ran = invocation.run();
  std::error_code error;
  if (!ran || diagnostics.errors > 0 || !fs::is_regular_file(partial, error) || fs::file_size(partial, error) == 0) {
    fs::remove(partial, error);
    return std::nullopt;
  }
  fs::rename(partial, output, error);
  if (error) {
    fs::remove(partial, error);
    return std::nullopt;
  }
  return output.string();
}

}  // namespace fastci::frontend::cpp
