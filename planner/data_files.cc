#include "planner/data_files.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace fastci::planner {
namespace {

using frontend::Symbol;
using frontend::SymbolKind;

bool delimiter(char c) { return c == '"' || c == '\'' || c == '/' || c == '\\'; }

/// Whether `line` holds `token` with a quote or a slash on both sides: inside a string literal or
/// a path, not as part of a longer name.
bool names(std::string_view line, std::string_view token) {
  if (token.empty()) return false;
  for (auto at = line.find(token); at != std::string_view::npos; at = line.find(token, at + 1)) {
    auto end = at + token.size();
    if (at > 0 && delimiter(line[at - 1]) && end < line.size() && delimiter(line[end])) return true;
  }
  return false;
}

bool lists_a_folder(std::string_view line) {
  for (std::string_view call : {"listdir(", "glob(", "iterdir(", "scandir(", "walk("})
    if (line.find(call) != std::string_view::npos) return true;
  return false;
}

/// What code may call a data file by: its file name, its stem (a registry naming configs without
/// the extension), the folders holding it.
struct DataName {
  std::string file_name, stem;
  std::vector<std::string> folders;
};

DataName data_name(const std::string& path) {
  DataName out;
  std::size_t start = 0;
  for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', start)) {
    if (slash > start) out.folders.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  out.file_name = path.substr(start);
  auto dot = out.file_name.rfind('.');
  if (dot != std::string::npos && dot >= 3) out.stem = out.file_name.substr(0, dot);
  return out;
}

/// Text files that are not code but may name another file (configurations, scripts): a file they
/// name is read by whatever reads them, which fastci does not follow.
bool may_name_files(const std::string& path) {
  for (std::string_view ext : {".yaml", ".yml", ".json", ".toml", ".cfg", ".ini", ".txt", ".sh"})
    if (path.ends_with(ext)) return true;
  return false;
}

bool looks_binary(const std::string& text) {
  return text.find('\0', 0) < std::min<std::size_t>(text.size(), 8192);
}

/// The innermost symbols holding `line` other than the module (several when one statement binds
/// several names); empty for a module-level statement that binds nothing.
std::vector<const Symbol*> holders(const frontend::FileFacts& facts, int line) {
  std::vector<const Symbol*> out;
  for (const auto& s : facts.symbols) {
    if (s.kind == SymbolKind::module || s.kind == SymbolKind::placeholder) continue;
    if (s.first_line > line || line > s.last_line) continue;
    int span = s.last_line - s.first_line;
    if (out.empty() || span < out.front()->last_line - out.front()->first_line) out = {&s};
    else if (span == out.front()->last_line - out.front()->first_line) out.push_back(&s);
  }
  return out;
}

const Symbol* module_of(const frontend::FileFacts& facts) {
  for (const auto& s : facts.symbols)
    if (s.kind == SymbolKind::module) return &s;
  return nullptr;
}

/// What one data file maps to: symbols counted as changed, widenings saying why, or why it stays
/// widened.
struct Mapping {
  std::vector<ChangedSymbol> symbols;
  std::vector<Widening> widenings;
  std::string unmapped;  ///< non-empty: why the whole-suite widening stays
};

void map_references(const std::string& data_path, const std::string& path, const frontend::FileFacts& facts,
                    const std::vector<DataFileReference>& refs, std::set<std::string>& seen, Mapping& out) {
  for (const auto& ref : refs) {
    std::string where = path + ":" + std::to_string(ref.line);
    auto inner = holders(facts, ref.line);
    if (inner.empty()) {
      const Symbol* module = module_of(facts);
      if (!module || module->language != frontend::Language::python) {
        out.unmapped = where + " " + ref.how + " outside every declaration";
        return;
      }
      if (seen.insert("importers:" + module->id).second)
        out.widenings.push_back({Widening::Scope::importers, data_path,
                                 "module-level code at " + where + " " + ref.how + ": its importers read it",
                                 module->id});
      continue;
    }
    for (const Symbol* s : inner) {
      if (!seen.insert(s->id).second) continue;
      out.symbols.push_back({s->id, SymbolChange::changed, s->kind, s->language, s->qualified_name, s->file,
                             s->first_line, s->last_line, {}});
      out.widenings.push_back({Widening::Scope::symbol, data_path,
                               where + " " + ref.how + ": " + s->qualified_name + " reads it, so it counts as changed",
                               s->id});
    }
  }
}

Mapping map_one(const ChangedFile& file, const TreeSources& tree, const FactsLookup& head_facts) {
  Mapping out;
  std::set<std::string> seen;
  std::vector<std::pair<std::string, bool>> wanted = {{file.path, file.status == FileStatus::added}};
  // Code still naming a renamed file's old path breaks with the change.
  if (file.status == FileStatus::renamed && !file.old_path.empty()) wanted.push_back({file.old_path, false});
  for (const auto& path : tree.paths) {
    if (path == file.path) continue;
    const frontend::FileFacts* facts = head_facts(path);
    if (!facts && !may_name_files(path)) continue;
    const std::string* text = tree.read(path);
    if (!text || looks_binary(*text)) continue;
    for (const auto& [name, added] : wanted) {
      if (!facts) {
        // A configuration naming the file by its folder and name: whatever reads it reads the file.
        auto folder = name.rfind('/');
        auto tail = folder == std::string::npos ? name : name.substr(name.rfind('/', folder - 1) + 1);
        if (folder != std::string::npos ? text->find(tail) != std::string::npos : names(*text, tail)) {
          out.unmapped = path + " names it and is not code: what reads " + path + " is not followed";
          return out;
        }
        continue;
      }
      auto refs = data_file_references(name, added, *text);
      map_references(file.path, path, *facts, refs, seen, out);
      if (!out.unmapped.empty()) return out;
    }
  }
  if (out.symbols.empty() && out.widenings.empty()) out.unmapped = "no code names it or lists a folder holding it";
  return out;
}

}  // namespace

std::vector<DataFileReference> data_file_references(const std::string& data_path, bool added, const std::string& text) {
  const DataName name = data_name(data_path);
  std::vector<DataFileReference> out;
  std::vector<int> listings;
  bool folder_named = false;
  int number = 0;
  std::string_view rest(text);
  while (!rest.empty()) {
    auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    ++number;
    if (names(line, name.file_name) || names(line, name.stem)) {
      out.push_back({number, "names it"});
      continue;
    }
    auto folder = std::find_if(name.folders.begin(), name.folders.end(), [&](const auto& f) { return names(line, f); });
    if (folder != name.folders.end()) {
      folder_named = true;
      if (!added) {
        out.push_back({number, "names its folder '" + *folder + "'"});
        continue;
      }
    }
    if (lists_a_folder(line)) listings.push_back(number);
  }
  if (folder_named)
    for (int line : listings) out.push_back({line, "lists a folder, in a file naming one holding it"});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.line < b.line; });
  return out;
}

void map_data_files(const TreeSources& tree, const FactsLookup& head_facts, ChangeSet& changes) {
  std::set<std::string> present;
  for (const auto& s : changes.symbols) present.insert(s.id);
  for (auto& file : changes.files) {
    if (file.kind != FileKind::unknown) continue;
    auto widened = std::find_if(changes.widenings.begin(), changes.widenings.end(), [&](const Widening& w) {
      return w.scope == Widening::Scope::everything && w.file == file.path && w.reason == kUnknownKindWidening;
    });
    Mapping mapping = map_one(file, tree, head_facts);
    if (!mapping.unmapped.empty()) {  // the whole suite, or nothing where unknown_files = "ignore"
      if (widened != changes.widenings.end()) widened->reason += ": " + mapping.unmapped;
      continue;
    }
    if (widened != changes.widenings.end()) changes.widenings.erase(widened);
    file.kind = FileKind::data;
    file.note = "data file: " + std::to_string(mapping.widenings.size()) + " place(s) in code name it or list its folder";
    for (auto& s : mapping.symbols)
      if (present.insert(s.id).second) changes.symbols.push_back(std::move(s));
    for (auto& w : mapping.widenings) changes.widenings.push_back(std::move(w));
  }
}

std::map<std::string, std::string> data_file_readers(const ChangeSet& changes) {
  std::map<std::string, std::string> out;
  for (const auto& f : changes.files)
    if (f.kind == FileKind::data)
      for (const auto& w : changes.widenings)
        if (w.file == f.path && w.scope == Widening::Scope::symbol) out.emplace(w.detail, f.path);
  return out;
}

}  // namespace fastci::planner
