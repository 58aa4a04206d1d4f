#include "planner/change_set.h"

#include <algorithm>
#include <map>
#include <set>

namespace fastci::planner {

using frontend::FileFacts;
using frontend::Symbol;
using frontend::SymbolKind;

const char* to_string(SymbolChange change) {
  switch (change) {
    case SymbolChange::changed: return "changed";
    case SymbolChange::added: return "added";
    case SymbolChange::deleted: return "deleted";
    case SymbolChange::renamed: return "renamed";
  }
  return "unknown";
}

const char* to_string(FileKind kind) {
  switch (kind) {
    case FileKind::python: return "python";
    case FileKind::native: return "native";
    case FileKind::select_all: return "select-all";
    case FileKind::ignored: return "ignored";
    case FileKind::rule: return "rule";
    case FileKind::unknown: return "unknown";
  }
  return "unknown";
}

const char* to_string(Widening::Scope scope) {
  switch (scope) {
    case Widening::Scope::everything: return "everything";
    case Widening::Scope::folder: return "folder";
    case Widening::Scope::importers: return "importers";
    case Widening::Scope::rule: return "rule";
    case Widening::Scope::test_file: return "test-file";
    case Widening::Scope::native_units: return "native-units";
  }
  return "unknown";
}

namespace {

bool is_python(const std::string& path) { return path.ends_with(".py") || path.ends_with(".pyi"); }

bool is_native(const std::string& path) {
  static const char* kExtensions[] = {".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh",
                                      ".h", ".hh", ".hpp", ".hxx", ".inl", ".tpp"};
  return std::any_of(std::begin(kExtensions), std::end(kExtensions),
                     [&](const char* e) { return path.ends_with(e); });
}

std::string folder_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool matches_rule(const Config& config, const std::string& path) {
  return std::any_of(config.rules.begin(), config.rules.end(),
                     [&](const PathRule& rule) { return any_match(rule.paths, path); });
}

/// Whether a line's text carries no code (blank or a comment in the file's language).
bool is_trivial_line(const std::string& text, bool python) {
  auto start = text.find_first_not_of(" \t\r");
  if (start == std::string::npos) return true;
  return python ? text[start] == '#' : text.compare(start, 2, "//") == 0;
}

/// The innermost non-module symbol containing `line`, or the file's module symbol.
const Symbol* innermost(const FileFacts& facts, int line) {
  const Symbol* best = nullptr;
  const Symbol* module = nullptr;
  for (const auto& s : facts.symbols) {
    if (s.kind == SymbolKind::module) {
      module = &s;
      continue;
    }
    if (s.kind == SymbolKind::placeholder || line < s.first_line || line > s.last_line) continue;
    if (!best || s.last_line - s.first_line < best->last_line - best->first_line) best = &s;
  }
  return best ? best : module;
}

const Symbol* by_id(const FileFacts* facts, const std::string& id) {
  if (!facts) return nullptr;
  for (const auto& s : facts->symbols)
    if (s.id == id) return &s;
  return nullptr;
}

ChangedSymbol changed_symbol(const Symbol& s, SymbolChange change) {
  return {s.id, change, s.kind, s.language, s.qualified_name, s.file, s.first_line, s.last_line, {}};
}

class Builder {
 public:
  explicit Builder(ChangeSet& out) : out_(out) {}

  void add_code_file(const FileDiff& diff, ChangedFile& file, const FileFacts* base,
                     const FileFacts* head) {
    bool python = file.kind == FileKind::python;
    if (!python && head && !head->parsed) {
      out_.widenings.push_back({Widening::Scope::native_units, file.path,
                                "C++/CUDA unit not understood at head (Clang crashed): everything compiled with it counts as changed",
                                {}});
    } else if (head && !head->parsed) {
      std::string module_id;
      for (const auto& s : head->symbols)
        if (s.kind == SymbolKind::module) module_id = s.id;
      std::string why = head->diagnostics.empty() ? std::string("does not parse")
                                                  : head->diagnostics.front().message;
      out_.widenings.push_back({Widening::Scope::importers, file.path,
                                "file not fully understood at head (" + why +
                                    "): every test that imports it is selected",
                                module_id});
    }
    std::set<std::string> touched_head, touched_base;
    for (std::size_t i = 0; i < diff.new_lines.size(); ++i)
      touch(head, diff.new_lines[i], diff.new_text[i], python, touched_head);
    for (std::size_t i = 0; i < diff.old_lines.size(); ++i)
      touch(base, diff.old_lines[i], diff.old_text[i], python, touched_base);
    // A symbol is changed when its body hash differs; one only in head is added, only in base deleted.
    std::set<std::string> ids(touched_head.begin(), touched_head.end());
    ids.insert(touched_base.begin(), touched_base.end());
    int unchanged = 0;
    for (const auto& id : ids) {
      const Symbol* h = by_id(head, id);
      const Symbol* b = by_id(base, id);
      if (h && b) {
        if (h->body_hash == b->body_hash && h->kind != SymbolKind::module) {
          ++unchanged;
          continue;
        }
        record(file, changed_symbol(*h, SymbolChange::changed));
      } else if (h) {
        record(file, changed_symbol(*h, SymbolChange::added));
      } else if (b) {
        record(file, changed_symbol(*b, SymbolChange::deleted));
      }
    }
    if (!python && outside_functions_ > 0) {
      out_.widenings.push_back({Widening::Scope::native_units, file.path,
                                std::to_string(outside_functions_) +
                                    " changed lines outside any function (macros, types, declarations): every unit "
                                    "that includes it counts as changed",
                                {}});
      outside_functions_ = 0;
      return;
    }
    if (file.symbols.empty() && (diff.new_lines.size() + diff.old_lines.size()) > 0)
      file.note = unchanged > 0 ? "formatting, comments or docstrings only" : "no code lines changed";
  }

  void record(ChangedFile& file, ChangedSymbol symbol) {
    file.symbols.push_back(symbol.id);
    out_.symbols.push_back(std::move(symbol));
  }

  /// Pairs deleted and added symbols with the same body (moved or renamed code).
  void detect_renames(const std::map<std::string, const FileFacts*>& base_by_path,
                      const std::map<std::string, const FileFacts*>& head_by_path) {
    auto hash_of = [](const std::map<std::string, const FileFacts*>& by_path, const ChangedSymbol& c) {
      auto it = by_path.find(c.file);
      const Symbol* s = it == by_path.end() ? nullptr : by_id(it->second, c.id);
      return s ? s->body_hash : 0;
    };
    for (auto& added : out_.symbols) {
      if (added.change != SymbolChange::added || added.kind == SymbolKind::module) continue;
      auto added_hash = hash_of(head_by_path, added);
      for (auto& deleted : out_.symbols) {
        if (deleted.change != SymbolChange::deleted || deleted.kind != added.kind) continue;
        if (added_hash != 0 && hash_of(base_by_path, deleted) == added_hash) {
          added.change = SymbolChange::renamed;
          added.renamed_from = deleted.id;
          break;
        }
      }
    }
  }

 private:
  void touch(const FileFacts* facts, int line, const std::string& text, bool python,
             std::set<std::string>& touched) {
    if (!facts) return;
    const Symbol* s = innermost(*facts, line);
    if (!s) {
      if (!python && !is_trivial_line(text, false)) ++outside_functions_;
      return;
    }
    // Blank and comment lines at module level are not code; inside a definition the body hash
    // decides (it ignores them).
    if (s->kind == SymbolKind::module && is_trivial_line(text, python)) return;
    touched.insert(s->id);
  }

  ChangeSet& out_;
  int outside_functions_ = 0;  ///< native lines of the current file outside every symbol
};

}  // namespace

ChangeSet build_change_set(const std::string& base, const std::string& head,
                           const std::vector<FileDiff>& diffs, const FactsLookup& base_facts,
                           const FactsLookup& head_facts, const Config& config) {
  ChangeSet out;
  out.base = base;
  out.head = head;
  Builder builder(out);
  std::map<std::string, const FileFacts*> base_by_path, head_by_path;
  for (const auto& diff : diffs) {
    ChangedFile file;
    file.status = diff.status;
    file.path = diff.status == FileStatus::deleted ? diff.old_path : diff.new_path;
    if (diff.status == FileStatus::renamed) file.old_path = diff.old_path;
    file.lines_added = static_cast<int>(diff.new_lines.size());
    file.lines_removed = static_cast<int>(diff.old_lines.size());
    const FileFacts* b = diff.status == FileStatus::added ? nullptr : base_facts(diff.old_path);
    const FileFacts* h = diff.status == FileStatus::deleted ? nullptr : head_facts(diff.new_path);
    if (b) base_by_path[b->path] = b;
    if (h) head_by_path[h->path] = h;
    const std::string name = file.path.substr(file.path.rfind('/') + 1);

    if (any_match(config.select_all, file.path)) {
      file.kind = FileKind::select_all;
      out.widenings.push_back({Widening::Scope::everything, file.path,
                               "build, dependency or CI configuration changed", {}});
    } else if (name == "conftest.py") {
      file.kind = FileKind::python;
      std::string folder = folder_of(file.path);
      out.widenings.push_back({Widening::Scope::folder, file.path,
                               "conftest.py changed: every test under its folder is selected", folder});
      builder.add_code_file(diff, file, b, h);
    } else if ((b || h) && (is_python(file.path) || is_native(file.path))) {
      file.kind = is_python(file.path) ? FileKind::python : FileKind::native;
      if (diff.binary) {
        out.widenings.push_back({Widening::Scope::everything, file.path,
                                 "source file became binary: cannot map the change", {}});
      } else {
        builder.add_code_file(diff, file, b, h);
      }
    } else if (is_native(file.path)) {
      file.kind = FileKind::native;
      out.widenings.push_back({Widening::Scope::everything, file.path,
                               "C/C++/CUDA source without parsed facts: cannot map the change to symbols",
                               {}});
    } else if (is_python(file.path)) {
      file.kind = FileKind::python;
      out.widenings.push_back({Widening::Scope::everything, file.path,
                               "Python file without facts (unreadable or outside the index)", {}});
    } else if (any_match(config.ignore, file.path)) {
      file.kind = FileKind::ignored;
    } else if (matches_rule(config, file.path)) {
      file.kind = FileKind::rule;
    } else {
      file.kind = FileKind::unknown;
      if (config.unknown == UnknownFilePolicy::widen)
        out.widenings.push_back({Widening::Scope::everything, file.path,
                                 "file of a kind no rule covers (configure [tool.fastci] ignore or rules)",
                                 {}});
      else
        file.note = "ignored: unknown_files = \"ignore\"";
    }
    // Path rules add to whatever the file's kind selects (a kernel folder may map to op tests).
    for (const auto& rule : config.rules)
      if (file.kind != FileKind::ignored && any_match(rule.paths, file.path))
        out.widenings.push_back({Widening::Scope::rule, file.path, "rule '" + rule.name + "'", rule.name});
    out.files.push_back(std::move(file));
  }
  builder.detect_renames(base_by_path, head_by_path);
  return out;
}

}  // namespace fastci::planner
