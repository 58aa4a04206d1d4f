#include "frontend/cpp/cpp_frontend.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "frontend/cpp/compile_flags.h"
#include "frontend/cpp/fact_extractor.h"
#include "frontend/cpp/preamble.h"
#include "frontend/cpp/stub_headers.h"
#include "util/hash.h"

namespace fastci::frontend::cpp {
namespace {

namespace fs = std::filesystem;

/// Names a location as repository-relative file and line where it can.
struct LocationNamer {
  std::string repository;
  std::pair<std::string, int> name(const clang::SourceManager& sources, clang::SourceLocation location) const {
    if (location.isInvalid()) return {"", 0};
    const clang::PresumedLoc presumed = sources.getPresumedLoc(sources.getExpansionLoc(location));
    if (presumed.isInvalid()) return {"", 0};
    std::string file = presumed.getFilename();
    const fs::path normal = fs::path(file).lexically_normal();
    const auto relative = normal.lexically_relative(repository);
    if (!relative.empty() && *relative.begin() != "..") file = relative.generic_string();
    return {file, static_cast<int>(presumed.getLine())};
  }
};

/// Counts Clang's errors and keeps the first few as diagnostics of the unit.
class CollectingDiagnostics : public clang::DiagnosticConsumer {
 public:
  CollectingDiagnostics(LocationNamer namer, std::vector<Diagnostic>& out) : namer_(std::move(namer)), out_(out) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    if (++errors > kKeptNativeErrors) return;
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    Diagnostic diagnostic;
    if (info.hasSourceManager()) std::tie(diagnostic.file, diagnostic.line) = namer_.name(info.getSourceManager(), info.getLocation());
    diagnostic.message = (level == clang::DiagnosticsEngine::Fatal ? "fatal: " : "") + message.str().str();
    out_.push_back(std::move(diagnostic));
  }

  int errors = 0;

 private:
  LocationNamer namer_;
  std::vector<Diagnostic>& out_;
};

/// Skips includes that cannot be found (a missing header is otherwise fatal) and reports each.
class MissingIncludes : public clang::PPCallbacks {
 public:
  MissingIncludes(const clang::SourceManager& sources, LocationNamer namer, CollectingDiagnostics& counter,
                  std::vector<Diagnostic>& out)
      : sources_(sources), namer_(std::move(namer)), counter_(counter), out_(out) {}

  bool FileNotFound(llvm::StringRef) override { return true; }

  void InclusionDirective(clang::SourceLocation hash, const clang::Token&, llvm::StringRef name, bool angled,
                          clang::CharSourceRange, clang::OptionalFileEntryRef file, llvm::StringRef,
                          llvm::StringRef, const clang::Module*, bool, clang::SrcMgr::CharacteristicKind) override {
    if (file) return;
    if (++counter_.errors > kKeptNativeErrors) return;
    Diagnostic diagnostic;
    std::tie(diagnostic.file, diagnostic.line) = namer_.name(sources_, hash);
    diagnostic.message = kMissingIncludeDiagnostic + std::string(angled ? "<" : "\"") + name.str() +
                         (angled ? ">" : "\"") + " (skipped; declarations from it are unknown)";
    out_.push_back(std::move(diagnostic));
  }

 private:
  const clang::SourceManager& sources_;
  LocationNamer namer_;
  CollectingDiagnostics& counter_;
  std::vector<Diagnostic>& out_;
};

/// Parses the unit and hands the AST to the fact extractor.
class FactAction : public clang::ASTFrontendAction {
 public:
  FactAction(ExtractionTarget target, LocationNamer namer, CollectingDiagnostics& counter)
      : target_(std::move(target)), namer_(std::move(namer)), counter_(counter) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& compiler, llvm::StringRef) override {
    compiler.getPreprocessor().addPPCallbacks(std::make_unique<MissingIncludes>(
        compiler.getSourceManager(), namer_, counter_, target_.facts->diagnostics));
    return make_fact_consumer(compiler, target_);
  }

 private:
  ExtractionTarget target_;
  LocationNamer namer_;
  CollectingDiagnostics& counter_;
};

/// Installed torch/pybind11 headers the stubs stand in for; mixing them with the stubs (a
/// `#include <torch/csrc/...>` reaching /usr/include) gives thousands of redefinition errors.
constexpr const char* kShadowedHeaderTrees[] = {
    "/usr/include/torch/", "/usr/include/ATen/", "/usr/include/c10/", "/usr/include/caffe2/",
    "/usr/include/pybind11/", "/usr/lib/python3/dist-packages/torch/include/"};

/// The real file system without the header trees the stubs replace.
class ShadowingFileSystem : public llvm::vfs::ProxyFileSystem {
 public:
  explicit ShadowingFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> base)
      : ProxyFileSystem(std::move(base)) {}

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override {
    if (shadowed(path)) return std::make_error_code(std::errc::no_such_file_or_directory);
    return ProxyFileSystem::status(path);
  }

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
    if (shadowed(path)) return std::make_error_code(std::errc::no_such_file_or_directory);
    return ProxyFileSystem::openFileForRead(path);
  }

 private:
  static bool shadowed(const llvm::Twine& path) {
    llvm::SmallString<256> text;
    const llvm::StringRef name = path.toStringRef(text);
    for (const char* tree : kShadowedHeaderTrees)
      if (name.starts_with(tree)) return true;
    return false;
  }
};

/// The real file system with the stub headers mounted under stub_directory() and the installed
/// headers they replace hidden.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> file_system_with_stubs(bool with_stubs) {
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  add_preamble_header(*memory);  // a preamble's own source, which Clang checks when it reads one
  if (!with_stubs) {
    auto plain = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
    plain->pushOverlay(memory);
    return plain;
  }
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::makeIntrusiveRefCnt<ShadowingFileSystem>(llvm::vfs::getRealFileSystem()));
  for (const StubHeader& stub : stub_headers()) {
    const std::string path = std::string(kStubDirectory) + "/" + std::string(stub.path);
    memory->addFile(path, 0, llvm::MemoryBuffer::getMemBuffer(stub.contents, path, /*RequiresNullTerminator=*/false));
  }
  overlay->pushOverlay(memory);
  return overlay;
}

/// Options with defaults filled in and paths normalised, plus the compile database if any.
struct ResolvedOptions {
  fs::path repository;
  std::optional<fs::path> cuda_path;
  bool use_stub_headers = true;
  std::vector<std::string> extra_arguments;
  CompileDatabase database;
  std::optional<Diagnostic> database_problem;
  std::shared_ptr<const HeaderIndex> headers;  ///< for guessed flags: headers by the path includes name
};

ResolvedOptions resolve(const CppParseOptions& options) {
  ResolvedOptions resolved;
  std::error_code error;
  resolved.repository = fs::weakly_canonical(fs::absolute(options.repository), error).lexically_normal();
  if (resolved.repository.has_filename() == false && resolved.repository.has_parent_path())
    resolved.repository = resolved.repository.parent_path();
  resolved.use_stub_headers = options.use_stub_headers;
  resolved.extra_arguments = options.extra_arguments;
  if (options.cuda_path) {
    if (fs::is_directory(*options.cuda_path, error)) resolved.cuda_path = fs::absolute(*options.cuda_path);
  } else if (fs::exists("/usr/local/cuda/include/cuda_runtime.h", error)) {
    resolved.cuda_path = "/usr/local/cuda";
  }
  std::optional<fs::path> database = options.compile_commands;
  if (!database) {
    for (const fs::path& candidate : {resolved.repository / "compile_commands.json",
                                     resolved.repository / "build" / "compile_commands.json"})
      if (fs::exists(candidate, error)) {
        database = candidate;
        break;
      }
  }
  if (database) {
    auto read = read_compile_database(*database);
    if (read) {
      resolved.database = std::move(*read);
    } else {
      resolved.database_problem = Diagnostic{Diagnostic::Severity::warning, read.error().file, read.error().line,
                                             read.error().message + "; using guessed flags"};
    }
  }
  // Without a compile database the include folders are guessed; the guess looks headers up by name.
  if (resolved.database.empty())
    resolved.headers = std::make_shared<const HeaderIndex>(HeaderIndex::scan(resolved.repository));
  return resolved;
}

std::vector<std::string> command_line(const ResolvedOptions& options, const fs::path& source) {
  FlagInputs inputs;
  inputs.repository = options.repository;
  inputs.source = source;
  inputs.cuda_path = options.cuda_path;
  inputs.stub_directory = options.use_stub_headers ? std::string(kStubDirectory) : std::string();
  inputs.extra_arguments = options.extra_arguments;
  if (const auto found = options.database.find(source.string()); found != options.database.end())
    inputs.database_entry = &found->second;
  inputs.headers = options.headers.get();
  return build_command_line(inputs);
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return std::nullopt;
  std::ostringstream bytes;
  bytes << stream.rdbuf();
  return bytes.str();
}

/// Parses one unit inside a crash-recovery context; never throws, never brings the process down.
/// `flags`: the unit's command line (command_line), computed once per call.
TranslationUnitFacts parse_one(const ResolvedOptions& options, const std::string& relative,
                               const std::vector<std::string>& flags, PreambleCache* preambles) {
  const auto started = std::chrono::steady_clock::now();
  TranslationUnitFacts unit;
  FileFacts& facts = unit.facts;
  const fs::path source = (options.repository / relative).lexically_normal();
  facts.path = fs::path(relative).generic_string();
  facts.language = is_cuda_source(source) ? Language::cuda : Language::cpp;
  const auto bytes = read_file(source);
  if (!bytes) {
    facts.parsed = false;
    facts.diagnostics.push_back({Diagnostic::Severity::error, facts.path, 0, "cannot read the file"});
    unit.error_count = 1;
    return unit;
  }
  facts.content_hash = util::content_hash(*bytes);
  unit.command_line = flags;
  std::vector<std::string> arguments = unit.command_line;
  const std::optional<std::string> preamble = preambles ? preambles->preamble_for(arguments) : std::nullopt;
  if (preamble) arguments.insert(arguments.end() - 1, {"-include-pch", *preamble});
  unit.used_preamble = preamble.has_value();

  std::map<std::string, std::string> headers;
  const LocationNamer namer{options.repository.string()};
  CollectingDiagnostics diagnostics(namer, facts.diagnostics);
  ExtractionTarget target{options.repository.string(), facts.path, &facts, &headers};
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(),
                                                             file_system_with_stubs(options.use_stub_headers));
  bool finished = false;
  llvm::CrashRecoveryContext recovery;
  const bool survived = recovery.RunSafely([&] {
    clang::tooling::ToolInvocation invocation(arguments,
                                              std::make_unique<FactAction>(target, namer, diagnostics), files.get());
    invocation.setDiagnosticConsumer(&diagnostics);
    invocation.run();  // false on any error; the facts found so far are kept either way
    finished = true;
  });
  unit.error_count = diagnostics.errors;
  if (preamble && std::any_of(facts.diagnostics.begin(), facts.diagnostics.end(),
                              [](const Diagnostic& d) { return preamble_rejected(d.message); })) {
    // Stale or unreadable (the system headers changed since it was built): without it, once.
    preambles->discard(*preamble);
    return parse_one(options, relative, flags, nullptr);
  }
  if (!survived || !finished) {
    unit.crashed = true;
    facts.symbols.clear();
    facts.edges.clear();
    facts.launches.clear();
    facts.bindings.clear();
    facts.parsed = false;
    facts.diagnostics.push_back({Diagnostic::Severity::error, facts.path, 0,
                                 "the C++ parser crashed on this file; its facts are missing"});
    ++unit.error_count;
  }
  if (diagnostics.errors > kKeptNativeErrors)
    facts.diagnostics.push_back({Diagnostic::Severity::error, facts.path, 0,
                                 std::to_string(diagnostics.errors) + " errors in total; the first " +
                                     std::to_string(kKeptNativeErrors) + " are listed"});
  for (auto& [path, hash] : headers) {
    facts.imported_modules.push_back(path);
    unit.headers.push_back({path, hash});
  }
  unit.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return unit;
}

}  // namespace

std::string stub_directory() { return std::string(kStubDirectory); }

std::vector<std::string> command_line_for(const std::string& repo_relative_source, const CppParseOptions& options) {
  const ResolvedOptions resolved = resolve(options);
  return command_line(resolved, (resolved.repository / repo_relative_source).lexically_normal());
}

std::vector<TranslationUnitFacts> parse_translation_units(const std::vector<std::string>& repo_relative_sources,
                                                          const CppParseOptions& options,
                                                          const ProgressCallback& progress) {
  static std::once_flag recovery_enabled;
  std::call_once(recovery_enabled, [] { llvm::CrashRecoveryContext::Enable(); });
  const ResolvedOptions resolved = resolve(options);
  // Command lines first: the preamble cache counts the units of each set of options before any is parsed.
  std::vector<std::vector<std::string>> flags;
  for (const std::string& source : repo_relative_sources)
    flags.push_back(command_line(resolved, (resolved.repository / source).lexically_normal()));
  std::optional<PreambleCache> preambles;
  if (options.precompiled_preamble && !repo_relative_sources.empty()) {
    preambles.emplace(options.preamble_directory, file_system_with_stubs(options.use_stub_headers));
    for (const auto& line : flags) preambles->expect(line);
  }
  std::vector<TranslationUnitFacts> results(repo_relative_sources.size());
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex progress_mutex;
  auto work = [&] {
    for (std::size_t index = next++; index < repo_relative_sources.size(); index = next++) {
      results[index] = parse_one(resolved, repo_relative_sources[index], flags[index], preambles ? &*preambles : nullptr);
      if (resolved.database_problem) results[index].facts.diagnostics.push_back(*resolved.database_problem);
      std::lock_guard lock(progress_mutex);
      ++done;
      if (progress) progress(done, repo_relative_sources.size(), repo_relative_sources[index]);
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(options.threads, repo_relative_sources.size()));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  return results;
}

}  // namespace fastci::frontend::cpp
