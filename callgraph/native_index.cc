#include "callgraph/native_index.h"

#include <algorithm>
#include <fstream>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "callgraph/index.h"
#include "frontend/facts_json.h"
#include "util/hash.h"
#include "util/progress.h"

#ifdef FASTCI_WITH_CPP_FRONTEND
#include "callgraph/cpp_frontend_loader.h"
#endif

namespace fastci::callgraph {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

bool ends_with_any(const std::string& path, std::initializer_list<const char*> extensions) {
  for (const char* e : extensions)
    if (path.ends_with(e)) return true;
  return false;
}

/// A unit as the cache keeps it: the headers it read (paths) and its facts.
struct CachedUnit {
  frontend::FileFacts facts;
  std::vector<std::string> headers;
  int error_count = 0;
  bool crashed = false;
};

std::string encode(const CachedUnit& unit) {
  json j = {{"format", "fastci-native-unit/1"}, {"facts", frontend::to_json(unit.facts)},
            {"headers", unit.headers}, {"errors", unit.error_count}, {"crashed", unit.crashed}};
  auto bytes = json::to_msgpack(j);
  return std::string(bytes.begin(), bytes.end());
}

std::optional<CachedUnit> decode(const std::string& bytes) {
  json j = json::from_msgpack(bytes.begin(), bytes.end(), true, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "fastci-native-unit/1") return std::nullopt;
  try {
    auto facts = frontend::file_facts_from_json(j.at("facts"));
    if (!facts.ok()) return std::nullopt;
    return CachedUnit{std::move(*facts), j.at("headers").get<std::vector<std::string>>(),
                      j.at("errors").get<int>(), j.at("crashed").get<bool>()};
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

/// The key of a unit's facts: its own content and that of every header it read last time.
std::string unit_key(const std::string& unit_hash, const std::vector<std::string>& headers,
                     const std::unordered_map<std::string, std::string>& hashes) {
  std::string text = unit_hash;
  for (const auto& h : headers) {
    auto it = hashes.find(h);
    text += "\n" + h + "=" + (it == hashes.end() ? std::string("absent") : it->second);
  }
  return util::content_hash(text);
}

/// Writes the tree's C/C++/CUDA files where Clang can read them; removed when it goes.
class ScratchTree {
 public:
  explicit ScratchTree(const fs::path& parent) {
    std::random_device random;
    root_ = parent / ("native-tree-" + std::to_string(random()));
  }
  ~ScratchTree() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  const fs::path& root() const { return root_; }
  void write(const SourceFile& file, std::vector<frontend::Diagnostic>& diagnostics) {
    auto content = file.load();
    if (!content.ok()) {
      diagnostics.push_back({frontend::Diagnostic::Severity::warning, file.path, 0, content.error().message});
      return;
    }
    fs::path target = root_ / file.path;
    std::error_code error;
    fs::create_directories(target.parent_path(), error);
    std::ofstream out(target, std::ios::binary);
    out.write(content->data(), static_cast<std::streamsize>(content->size()));
  }

 private:
  fs::path root_;
};

/// `PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)` in several files would merge into one module; the
/// file goes into the module name until extensions name it (extension_links.h).
void qualify_unnamed_bindings(frontend::FileFacts& unit) {
  const std::string unnamed = "TORCH_EXTENSION_NAME";
  auto qualified = [&](const std::string& id, const std::string& file) {
    const std::string prefix = "binding:" + unnamed + ".";
    return id.starts_with(prefix) ? "binding:" + unnamed + "@" + file + "." + id.substr(prefix.size()) : id;
  };
  std::unordered_map<std::string, std::string> renamed;
  for (auto& s : unit.symbols)
    if (s.kind == frontend::SymbolKind::binding) {
      std::string id = qualified(s.id, s.file);
      if (id == s.id) continue;
      renamed[s.id] = id;
      s.id = id;
      s.qualified_name = id.substr(8);
    }
  for (auto& b : unit.bindings)
    if (b.extension_module == unnamed) b.extension_module = unnamed + "@" + b.file;
  for (auto& e : unit.edges)
    if (auto it = renamed.find(e.from); it != renamed.end()) e.from = it->second;
}

frontend::Language language_of(const std::string& path) {
  return ends_with_any(path, {".cu", ".cuh"}) ? frontend::Language::cuda : frontend::Language::cpp;
}

/// Splits units' facts by the file each fact is in; a header's symbols come once however many
/// units read it.
class FactsByPath {
 public:
  explicit FactsByPath(const std::unordered_map<std::string, std::string>& hashes) : hashes_(hashes) {}

  void add(const frontend::FileFacts& unit) {
    auto& own = at(unit.path);
    own.parsed = unit.parsed;
    own.imported_modules = unit.imported_modules;
    own.diagnostics.insert(own.diagnostics.end(), unit.diagnostics.begin(), unit.diagnostics.end());
    for (const auto& s : unit.symbols)
      if (symbols_.insert(s.id).second) at(s.file.empty() ? unit.path : s.file).symbols.push_back(s);
    for (const auto& e : unit.edges) {
      std::string key = e.from + '\x1f' + e.to + '\x1f' + frontend::to_string(e.kind) + '\x1f' + e.file + ':' +
                        std::to_string(e.line);
      if (edges_.insert(key).second) at(e.file.empty() ? unit.path : e.file).edges.push_back(e);
    }
    for (const auto& l : unit.launches) {
      std::string key = l.host_function + '\x1f' + l.kernel + '\x1f' + l.file + ':' + std::to_string(l.line);
      if (launches_.insert(key).second) at(l.file.empty() ? unit.path : l.file).launches.push_back(l);
    }
    for (const auto& b : unit.bindings) {
      std::string key = b.extension_module + '\x1f' + b.python_name + '\x1f' + b.target + '\x1f' + b.dispatch_key +
                        '\x1f' + b.file + ':' + std::to_string(b.line);
      if (bindings_.insert(key).second) at(b.file.empty() ? unit.path : b.file).bindings.push_back(b);
    }
  }

  std::vector<frontend::FileFacts> take() {
    std::vector<frontend::FileFacts> out;
    for (auto& [path, facts] : by_path_) out.push_back(std::move(facts));
    return out;
  }

 private:
  frontend::FileFacts& at(const std::string& path) {
    auto [it, fresh] = by_path_.try_emplace(path);
    if (fresh) {
      it->second.path = path;
      it->second.language = language_of(path);
      auto hash = hashes_.find(path);
      it->second.content_hash = hash == hashes_.end() ? std::string() : hash->second;
    }
    return it->second;
  }

  const std::unordered_map<std::string, std::string>& hashes_;
  std::map<std::string, frontend::FileFacts> by_path_;
  std::unordered_set<std::string> symbols_, edges_, launches_, bindings_;
};

}  // namespace

bool is_native_source(const std::string& path) { return frontend::is_native_source(path); }

bool is_translation_unit(const std::string& path) { return frontend::is_native_translation_unit(path); }

#ifdef FASTCI_WITH_CPP_FRONTEND
bool native_frontend_available() { return true; }
#else
bool native_frontend_available() { return false; }
#endif

NativeIndex index_native(const std::vector<SourceFile>& files, IndexCache& cache, const NativeIndexOptions& options) {
  NativeIndex result;
  std::unordered_map<std::string, std::string> hashes;
  std::vector<const SourceFile*> natives, units;
  for (const auto& f : files) {
    if (!is_native_source(f.path) || f.is_symlink) continue;
    hashes[f.path] = f.content_hash;
    natives.push_back(&f);
    if (is_translation_unit(f.path) && (!options.only_units || options.only_units->contains(f.path)))
      units.push_back(&f);
  }
  result.units = units.size();
  std::vector<CachedUnit> facts(units.size());
  std::vector<std::size_t> misses;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const SourceFile& unit = *units[i];
    std::optional<CachedUnit> hit;
    if (auto deps = cache.lookup("native-deps", unit.path, unit.content_hash)) {
      auto headers = json::parse(*deps, nullptr, false);
      if (headers.is_array()) {
        auto key = unit_key(unit.content_hash, headers.get<std::vector<std::string>>(), hashes);
        if (auto blob = cache.lookup("native", unit.path, key)) hit = decode(*blob);
      }
    }
    if (hit) facts[i] = std::move(*hit);
    else misses.push_back(i);
  }

  // Units the frontend cannot parse here are indexed as not parsed, with why: the plan widens for them.
  auto not_parsed = [&](const std::string& why) {
    for (std::size_t i : misses) {
      facts[i].facts.path = units[i]->path;
      facts[i].facts.parsed = false;
      facts[i].facts.diagnostics.push_back({frontend::Diagnostic::Severity::warning, units[i]->path, 0, why});
    }
  };
#ifdef FASTCI_WITH_CPP_FRONTEND
  const frontend::cpp::FrontendPlugin* plugin = nullptr;
  if (!misses.empty()) {
    auto loaded = cpp_frontend();
    if (loaded.ok()) plugin = *loaded;
    else not_parsed(loaded.error().to_string());
  }
  if (plugin) {
    ScratchTree tree(options.scratch_dir.empty() ? fs::temp_directory_path() : options.scratch_dir);
    for (const SourceFile* f : natives) tree.write(*f, result.diagnostics);
    std::vector<std::string> paths;
    for (std::size_t i : misses) paths.push_back(units[i]->path);
    frontend::cpp::CppParseOptions parse;
    parse.repository = tree.root();
    parse.threads = std::max(1u, options.threads);
    if (!options.scratch_dir.empty()) parse.preamble_directory = options.scratch_dir / "preambles";
    util::Progress progress("parsing C++/CUDA", paths.size());
    if (!options.show_progress) progress.finish();
    auto parsed = plugin->parse_translation_units(
        paths, parse, [&](std::size_t, std::size_t, const std::string&) { progress.advance(); });
    progress.finish();
    std::vector<CacheEntry> fresh;
    for (std::size_t k = 0; k < misses.size(); ++k) {
      auto& unit = facts[misses[k]];
      unit.facts = std::move(parsed[k].facts);
      unit.facts.content_hash = units[misses[k]]->content_hash;
      unit.error_count = parsed[k].error_count;
      unit.crashed = parsed[k].crashed;
      for (const auto& h : parsed[k].headers) unit.headers.push_back(h.path);
      std::sort(unit.headers.begin(), unit.headers.end());
      const auto& path = units[misses[k]]->path;
      const auto& hash = units[misses[k]]->content_hash;
      fresh.push_back({"native-deps", path, hash, json(unit.headers).dump()});
      fresh.push_back({"native", path, unit_key(hash, unit.headers, hashes), encode(unit)});
    }
    result.parsed = misses.size();
    if (auto status = cache.store(fresh); !status)
      result.diagnostics.push_back({frontend::Diagnostic::Severity::warning, ".fastci/index.db", 0, status.error().message});
  }
#else
  not_parsed("fastci was built without the C++/CUDA frontend (FASTCI_WITH_CLANG=OFF)");
#endif

  FactsByPath split(hashes);
  for (auto& unit : facts) {
    if (unit.facts.path.empty()) continue;
    if (unit.crashed) ++result.crashed;
    if (unit.error_count > 0) {
      ++result.units_with_errors;
      result.diagnostics.push_back({frontend::Diagnostic::Severity::warning, unit.facts.path, 0,
                                    std::to_string(unit.error_count) +
                                        " Clang errors (missing headers or unknown declarations); facts kept"});
    }
    unit.facts.imported_modules = unit.headers;
    for (const auto& h : unit.headers) result.includers[h].insert(unit.facts.path);
    qualify_unnamed_bindings(unit.facts);
    split.add(unit.facts);
  }
  result.files = split.take();
  return result;
}

}  // namespace fastci::callgraph
