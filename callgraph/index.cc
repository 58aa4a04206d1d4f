#include "callgraph/index.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "callgraph/native_index.h"
#include "frontend/python/link_modules.h"
#include "frontend/python/module_record.h"
#include "frontend/python/moved_lines.h"
#include "frontend/python/parse_module.h"
#include "util/hash.h"
#include "util/progress.h"

namespace fastci::callgraph {

namespace python = frontend::python;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

frontend::Diagnostic warning(const std::string& file, const std::string& message) {
  return {frontend::Diagnostic::Severity::warning, file, 0, message};
}

}  // namespace

const frontend::FileFacts* IndexResult::find(const std::string& path) const {
  auto it = file_index.find(path);
  return it == file_index.end() ? nullptr : &facts.files[it->second];
}

std::vector<frontend::Test> IndexResult::tests() const {
  std::vector<frontend::Test> out;
  for (const auto& f : facts.files) out.insert(out.end(), f.tests.begin(), f.tests.end());
  return out;
}

bool is_indexed_source(const std::string& path) { return path.ends_with(".py"); }

// Bumped by hand on format changes; the configure-time hash of the frontend sources catches the rest.
std::string frontend_version() { return std::string("python-2-") + FASTCI_PYTHON_FRONTEND_HASH; }

frontend::FileFacts parse_file(const std::string& path, const std::string& content) {
  return python::parse_module(path, content).facts;
}

namespace {

std::vector<std::string> native_paths(const std::vector<SourceFile>& files) {
  std::vector<std::string> out;
  for (const auto& f : files)
    if (is_native_source(f.path) && !f.is_symlink) out.push_back(f.path);
  return out;
}

NativeIndexOptions native_options(const IndexOptions& options) {
  NativeIndexOptions native;
  native.threads = options.threads;
  native.show_progress = options.show_progress;
  native.scratch_dir = options.scratch_dir;
  return native;
}

/// Directory symlinks inside the repository that point at Python packages (DeepSpeed links
/// deepspeed/accelerator -> ../../accelerator and deepspeed/ops/op_builder -> ../../op_builder):
/// dotted name of the link -> dotted name of the target.
std::map<std::string, std::string> package_aliases(const std::vector<SourceFile>& files,
                                                   const std::vector<const SourceFile*>& python_sources) {
  std::map<std::string, std::string> out;
  for (const auto& f : files) {
    if (!f.is_symlink || is_indexed_source(f.path)) continue;
    auto target_text = f.load();
    if (!target_text.ok() || target_text->empty() || target_text->front() == '/') continue;
    std::filesystem::path target = (std::filesystem::path(f.path).parent_path() / *target_text).lexically_normal();
    std::string folder = target.generic_string();
    while (folder.ends_with("/")) folder.pop_back();  // "../accelerator/"
    if (folder.empty() || folder == "." || folder.starts_with("..")) continue;  // outside the repository
    bool python_package = std::any_of(python_sources.begin(), python_sources.end(),
                                      [&](const SourceFile* s) { return s->path.starts_with(folder + "/"); });
    if (!python_package) continue;
    out[python::module_name_for_path(f.path + "/__init__.py")] = python::module_name_for_path(folder + "/__init__.py");
  }
  return out;
}

/// The C++/CUDA pass of a tree, started on a thread of its own where it can overlap the Python
/// linker (which runs on one thread and leaves the others idle); the two share only the cache,
/// which locks.
class NativePass {
 public:
  NativePass(const std::vector<SourceFile>& files, IndexCache& cache, const IndexOptions& options)
      : files_(files), paths_(native_paths(files)), cache_(cache), options_(options) {}
  /// The tree's C++/CUDA sources (none: no pass to run).
  const std::vector<std::string>& paths() const { return paths_; }
  /// Starts the pass on another thread.
  void start() {
    if (!pass_.valid() && !paths_.empty()) pass_ = std::async(std::launch::async, [this] { return run(); });
  }
  /// The pass's result, run here where it was not started; an exception of the pass is rethrown here.
  NativeIndex take() { return pass_.valid() ? pass_.get() : run(); }
  double seconds() const { return seconds_; }

 private:
  NativeIndex run() {
    auto start = std::chrono::steady_clock::now();
    auto native = index_native(files_, cache_, native_options(options_));
    seconds_ = seconds_since(start);
#ifdef __GLIBC__
    // Clang's ASTs are freed by now, into this thread's glibc arena, which keeps the pages: while the
    // linker runs beside, they would add to its peak.
    malloc_trim(0);
#endif
    return native;
  }
  const std::vector<SourceFile>& files_;
  const std::vector<std::string> paths_;
  IndexCache& cache_;
  const IndexOptions& options_;
  std::future<NativeIndex> pass_;
  double seconds_ = 0;
};

/// C++/CUDA facts appended to the linked Python facts, and Python calls linked to the bindings.
void add_native_facts(NativePass& pass, const std::vector<python::ExtensionModule>& declared, IndexResult& result) {
  const auto& natives = pass.paths();
  if (natives.empty()) return;
  auto native = pass.take();
  auto start = std::chrono::steady_clock::now();
  result.native_units = native.units;
  result.native_parsed = native.parsed;
  result.native_units_with_errors = native.units_with_errors;
  result.includers = std::move(native.includers);
  result.extensions = resolve_extensions(declared, natives);
  name_extension_bindings(native.files, result.extensions);
  for (auto& f : native.files) result.facts.files.push_back(std::move(f));
  result.facts.diagnostics.insert(result.facts.diagnostics.end(), native.diagnostics.begin(), native.diagnostics.end());
  result.python_to_native_links = link_python_to_bindings(result.facts, result.extensions);
  // The pass's own time (it may have overlapped the linker), then the links to its bindings.
  result.native_seconds = pass.seconds() + seconds_since(start);
}

}  // namespace

std::vector<frontend::FileFacts> native_facts_of_units(const std::vector<SourceFile>& files,
                                                       const std::set<std::string>& units, IndexCache& cache,
                                                       const IndexOptions& options,
                                                       const std::vector<ResolvedExtension>& extensions) {
  auto native = native_options(options);
  native.only_units = units;
  auto index = index_native(files, cache, native);
  name_extension_bindings(index.files, extensions);
  return std::move(index.files);
}

namespace {

/// Python sources of a file list: what index_repository links (a symbolic link is never followed:
/// it may point out of the repository).
std::vector<const SourceFile*> python_sources(const std::vector<SourceFile>& files) {
  std::vector<const SourceFile*> out;
  for (const auto& f : files)
    if (is_indexed_source(f.path) && !f.is_symlink) out.push_back(&f);
  return out;
}

/// A file's record from the cache, where it is there and reads back.
std::optional<python::ModuleRecord> cached_record(IndexCache& cache, const SourceFile& source) {
  if (auto blob = cache.lookup("python", source.path, source.content_hash))
    if (auto record = python::deserialize(*blob); record.ok()) return std::move(*record);
  return std::nullopt;
}

/// Parses (or reads from the cache) every Python source and links them; the linked facts are
/// cached under `key` for the next analysis of the same tree.
void link_python_sources(const std::vector<const SourceFile*>& sources, const std::map<std::string, std::string>& aliases,
                         const std::string& key, IndexCache& cache, const IndexOptions& options, IndexResult& result,
                         std::vector<python::ExtensionModule>& declared, NativePass& native) {
  std::vector<python::ModuleRecord> records(sources.size());
  std::vector<CacheEntry> fresh;
  std::mutex fresh_mutex;
  std::atomic<std::size_t> next{0}, parsed{0};
  util::Progress progress("indexing", sources.size());
  if (!options.show_progress) progress.finish();
  auto start = std::chrono::steady_clock::now();
  std::atomic<bool> unreadable{false};

  auto work = [&] {
    for (std::size_t i = next++; i < sources.size(); i = next++) {
      const SourceFile& source = *sources[i];
      if (auto record = cached_record(cache, source)) {
        records[i] = std::move(*record);
        progress.advance();
        continue;
      }
      auto content = source.load();
      if (!content.ok()) {
        records[i] = python::parse_module(source.path, "");
        records[i].facts.parsed = false;
        unreadable = true;
        records[i].facts.diagnostics.push_back(
            {frontend::Diagnostic::Severity::error, source.path, 0, content.error().message});
      } else {
        records[i] = python::parse_module(source.path, *content);
        std::lock_guard lock(fresh_mutex);
        fresh.push_back({"python", source.path, source.content_hash, python::serialize(records[i])});
      }
      ++parsed;
      progress.advance();
    }
  };
  unsigned threads = std::max(1u, std::min<unsigned>(options.threads, sources.size() / 64 + 1));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  progress.finish();
  result.parsed = parsed;
  result.parse_seconds = seconds_since(start);

  if (auto status = cache.store(fresh); !status)
    result.facts.diagnostics.push_back(warning(".fastci/index.db", status.error().message));
  std::vector<CacheEntry>().swap(fresh);  // the serialized records of a cold run: not needed while linking
  if (options.threads > 1) native.start();

  for (const auto& r : records) declared.insert(declared.end(), r.extensions.begin(), r.extensions.end());
  start = std::chrono::steady_clock::now();
  auto diagnostics = std::move(result.facts.diagnostics);
  auto constants = python::constant_reads(records);
  result.facts = python::link_modules(std::move(records), aliases, options.release_link_state);
  result.link_seconds = seconds_since(start);
#ifdef __GLIBC__
  // The records (parsed on every thread, so spread over glibc's per-thread arenas) and the resolver's
  // memo are freed by now; what they held is handed back to the system rather than kept as holes.
  malloc_trim(0);
#endif
  // A file that could not be read is linked as empty: worth reading again next time, not caching.
  if (!unreadable)
    if (auto status = cache.store_linked(key, python::serialize_linked(result.facts, declared, constants),
                                         options.linked_trees_kept);
        !status)
      diagnostics.push_back(warning(".fastci/index.db", status.error().message));
  result.facts.diagnostics.insert(result.facts.diagnostics.end(), diagnostics.begin(), diagnostics.end());
}

/// The linked facts depend on nothing but the Python files (path and content) and the package
/// aliases; the frontend version is the cache's own key column.
std::string linked_key(const std::vector<const SourceFile*>& sources, const std::map<std::string, std::string>& aliases) {
  std::string text;
  for (const auto* s : sources) text.append(s->path).append(1, '\0').append(s->content_hash).append(1, '\n');
  text.append(1, '\1');
  for (const auto& [from, to] : aliases) text.append(from).append(1, '\0').append(to).append(1, '\n');
  return util::content_hash(text);
}

/// The Python facts of a tree analysed before, or false.
bool linked_from_cache(IndexCache& cache, const std::string& key, IndexResult& result,
                       std::vector<python::ExtensionModule>& declared) {
  auto blob = cache.lookup_linked(key);
  if (!blob) return false;
  auto tree = python::deserialize_linked(*blob);
  blob.reset();  // 21 MB for Megatron-LM: not held beside the facts decoded from it
  if (!tree.ok()) return false;
  auto diagnostics = std::move(result.facts.diagnostics);
  result.facts = std::move(tree->facts);
  result.facts.diagnostics.insert(result.facts.diagnostics.end(), diagnostics.begin(), diagnostics.end());
  declared = std::move(tree->extensions);
  return true;
}

/// A record from the cache, or parsed (and cached) where it is not there.
std::optional<python::ModuleRecord> cached_or_parsed(IndexCache& cache, const SourceFile& source, std::size_t& parsed) {
  if (auto record = cached_record(cache, source)) return record;
  auto content = source.load();
  if (!content.ok()) return std::nullopt;
  auto record = python::parse_module(source.path, *content);
  (void)cache.store({{"python", source.path, source.content_hash, python::serialize(record)}});
  ++parsed;
  return record;
}

/// The linked facts of the neighbour tree with the lines of the few files that differ moved, where
/// each of them differs only in positions; false (nothing changed) where any does not.
bool linked_from_neighbor(const std::vector<const SourceFile*>& sources, const std::map<std::string, std::string>& aliases,
                          const std::string& key, IndexCache& cache, const IndexOptions& options, IndexResult& result,
                          std::vector<python::ExtensionModule>& declared) {
  constexpr std::size_t kMostFiles = 16;  // past that, linking costs little more than checking
  const auto files = options.neighbor();
  const auto before = python_sources(files);
  if (before.size() != sources.size() || package_aliases(files, before) != aliases) return false;
  std::vector<std::pair<const SourceFile*, const SourceFile*>> changed;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (before[i]->path != sources[i]->path) return false;  // a file added, removed or renamed
    if (before[i]->content_hash != sources[i]->content_hash) changed.emplace_back(before[i], sources[i]);
  }
  if (changed.empty() || changed.size() > kMostFiles) return false;
  auto blob = cache.lookup_linked(linked_key(before, aliases));
  if (!blob) return false;
  auto tree = python::deserialize_linked(*blob);
  blob.reset();  // not held beside the facts decoded from it, nor the blob serialized from them below
  if (!tree.ok()) return false;
  std::size_t parsed = 0;
  for (const auto& [old_file, new_file] : changed) {
    auto old_record = cached_record(cache, *old_file);
    auto new_record = old_record ? cached_or_parsed(cache, *new_file, parsed) : std::nullopt;
    if (!new_record) return false;
    // Records equal but for positions and unread literals read the same constants: the base's
    // constant_reads are the head's.
    auto lines = python::moved_lines(*old_record, *new_record, &tree->constant_reads);
    if (!lines || !python::move_linked_lines(*tree, *new_record, *lines)) return false;
  }
  if (auto status = cache.store_linked(key, python::serialize(*tree), options.linked_trees_kept); !status)
    tree->facts.diagnostics.push_back(warning(".fastci/index.db", status.error().message));
  auto diagnostics = std::move(result.facts.diagnostics);
  result.facts = std::move(tree->facts);
  result.facts.diagnostics.insert(result.facts.diagnostics.end(), diagnostics.begin(), diagnostics.end());
  declared = std::move(tree->extensions);
  result.parsed = parsed;
  return true;
}

}  // namespace

IndexResult index_repository(const std::vector<SourceFile>& files, IndexCache& cache,
                             const IndexOptions& options) {
  IndexResult result;
  for (const auto& f : files)
    if (is_indexed_source(f.path) && f.is_symlink)
      result.facts.diagnostics.push_back(warning(f.path, "symbolic link not followed; not indexed"));
  const auto sources = python_sources(files);
  result.files = sources.size();
  auto aliases = package_aliases(files, sources);
  const std::string key = linked_key(sources, aliases);
  std::vector<python::ExtensionModule> declared;
  NativePass native(files, cache, options);
  auto start = std::chrono::steady_clock::now();
  if (linked_from_cache(cache, key, result, declared)) {
    result.linked_from_cache = true;
    result.parse_seconds = seconds_since(start);
  } else if (options.neighbor && linked_from_neighbor(sources, aliases, key, cache, options, result, declared)) {
    result.linked_from_neighbor = true;
    result.parse_seconds = seconds_since(start);
  } else {
    link_python_sources(sources, aliases, key, cache, options, result, declared, native);
  }

  add_native_facts(native, declared, result);
  for (std::size_t i = 0; i < result.facts.files.size(); ++i) result.file_index[result.facts.files[i].path] = i;
  return result;
}

}  // namespace fastci::callgraph
