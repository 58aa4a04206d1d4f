#include "planner/change_set.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "callgraph/native_index.h"
#include "planner/include_changes.h"

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
    case FileKind::data: return "data";
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
    case Widening::Scope::symbol: return "symbol";
  }
  return "unknown";
}

namespace {

bool is_python(const std::string& path) { return path.ends_with(".py") || path.ends_with(".pyi"); }

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

/// Which symbols hold each line of one file, built once per file: a line lookup must not scan
/// every symbol (a generated module can bind 100k names).
class SymbolLines {
 public:
  explicit SymbolLines(const FileFacts* facts) : present_(facts != nullptr) {
    if (!facts) return;
    std::vector<const Symbol*> order;
    int last = 0;
    for (const auto& s : facts->symbols) {
      by_id_.emplace(s.id, &s);
      if (s.kind == SymbolKind::variable) {
        variables_[s.qualified_name].push_back(&s);
        all_variables_.push_back(&s);
      }
      if (s.kind == SymbolKind::module) module_ = &s;
      if (s.kind == SymbolKind::module || s.kind == SymbolKind::placeholder || s.first_line < 1 ||
          s.last_line < s.first_line)
        continue;
      order.push_back(&s);
      last = std::max(last, s.last_line);
    }
    // Widest first: narrower symbols paint over them, equal ones join them.
    std::stable_sort(order.begin(), order.end(), [](const Symbol* a, const Symbol* b) {
      return a->last_line - a->first_line > b->last_line - b->first_line;
    });
    at_.resize(static_cast<std::size_t>(last) + 1);
    class_at_.assign(static_cast<std::size_t>(last) + 1, nullptr);
    for (const Symbol* s : order)
      for (int line = s->first_line; line <= s->last_line; ++line) {
        auto& here = at_[line];
        if (here.empty() || span(*here.front()) > span(*s)) here = {s};
        else if (span(*here.front()) == span(*s)) here.push_back(s);
        if (s->kind == SymbolKind::class_) class_at_[line] = s;
      }
  }

  /// The innermost non-module symbols containing `line` (several when one statement binds several
  /// names), or the file's module symbol.
  std::vector<const Symbol*> innermost(int line) const {
    if (line >= 0 && static_cast<std::size_t>(line) < at_.size() && !at_[line].empty()) return at_[line];
    if (module_) return {module_};
    return {};
  }

  /// The innermost class holding a symbol's first line.
  const Symbol* enclosing_class(const Symbol& inner) const {
    int line = inner.first_line;
    return line >= 0 && static_cast<std::size_t>(line) < class_at_.size() ? class_at_[line] : nullptr;
  }

  bool present() const { return present_; }

  /// The file's own symbol (Python module, or a C/C++ file's tokens outside every declaration).
  const Symbol* module() const { return module_; }

  /// The body hashes of the variables binding one qualified name.
  std::set<std::uint64_t> hashes_of(const std::string& qualified_name) const {
    std::set<std::uint64_t> out;
    if (auto it = variables_.find(qualified_name); it != variables_.end())
      for (const Symbol* s : it->second) out.insert(s->body_hash);
    return out;
  }

  /// Every variable of the file (module and class level).
  const std::vector<const Symbol*>& variables() const { return all_variables_; }

  const Symbol* find(const std::string& id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : it->second;
  }

 private:
  static int span(const Symbol& s) { return s.last_line - s.first_line; }
  std::vector<std::vector<const Symbol*>> at_;
  std::vector<const Symbol*> class_at_;
  std::unordered_map<std::string, const Symbol*> by_id_;
  std::unordered_map<std::string, std::vector<const Symbol*>> variables_;  ///< by qualified name
  std::vector<const Symbol*> all_variables_;
  const Symbol* module_ = nullptr;
  bool present_ = false;
};

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
      // Its first diagnostic says why: Clang crashed on it, or the frontend could not be loaded here.
      std::string why = head->diagnostics.empty() ? std::string("Clang crashed") : head->diagnostics.front().message;
      out_.widenings.push_back({Widening::Scope::native_units, file.path,
                                "C++/CUDA unit not understood at head (" + why +
                                    "): everything compiled with it counts as changed",
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
    module_lines_.clear();
    shared_lines_.clear();
    index_imports(head);
    SymbolLines head_lines(head), base_lines(base);
    head_side_ = true;
    for (std::size_t i = 0; i < diff.new_lines.size(); ++i)
      touch(head_lines, diff.new_lines[i], diff.new_text[i], python, touched_head);
    head_side_ = false;
    for (std::size_t i = 0; i < diff.old_lines.size(); ++i)
      touch(base_lines, diff.old_lines[i], diff.old_text[i], python, touched_base);
    // A symbol is changed when its body hash differs; one only in head is added, only in base deleted.
    std::set<std::string> ids(touched_head.begin(), touched_head.end());
    ids.insert(touched_base.begin(), touched_base.end());
    int unchanged = 0;
    std::vector<std::pair<const Symbol*, const Symbol*>> changed_classes;  // head, base
    for (const auto& id : ids) {
      const Symbol* h = head_lines.find(id);
      const Symbol* b = base_lines.find(id);
      const Symbol* either = h ? h : b;
      if (either && either->kind == SymbolKind::variable &&
          head_lines.hashes_of(either->qualified_name) == base_lines.hashes_of(either->qualified_name)) {
        ++unchanged;  // the name is bound to the same things (a duplicate import removed, lines moved)
        continue;
      }
      if (h && b) {
        if (h->body_hash == b->body_hash && h->fields_hash == b->fields_hash) {
          if (python && h->doc_hash != b->doc_hash) out_.docstrings.push_back(changed_symbol(*h, SymbolChange::changed));
          ++unchanged;
          continue;
        }
        bool annotations = false;
        if (python && h->kind == SymbolKind::module && only_future_imports(annotations)) {
          // Other features of __future__ are the default on every Python 3 this runs.
          if (annotations && head) postpone_annotations(file, *head, module_lines_.front().line);
          else ++unchanged;
          continue;
        }
        record(file, changed_symbol(*h, SymbolChange::changed));
        if (python && h->kind == SymbolKind::module) widen_module(file, *h);
        if (!python && h->kind == SymbolKind::module) widen_native_file(file, diff.status, h->doc_hash == b->doc_hash);
        if (python && h->kind == SymbolKind::class_) changed_classes.emplace_back(h, b);
      } else if (h) {
        hashes_[h->id] = h->body_hash;
        record(file, changed_symbol(*h, SymbolChange::added));
      } else if (b) {
        hashes_[b->id] = b->body_hash;
        record(file, changed_symbol(*b, SymbolChange::deleted));
        if (b->kind == SymbolKind::declaration) record_declared_function(file, *b);
      }
    }
    // A class whose own code changed (decorators, bases, metaclass, class-level statements; not
    // its docstrings, nor its fields' docstrings) may change what its fields mean: their readers
    // count too. Where only its fields changed, the fields before the first one added, removed or
    // edited keep their place in a generated __init__ and their meaning, so only those from there
    // on count.
    std::set<std::string> recorded(file.symbols.begin(), file.symbols.end());
    for (const auto& [h, b] : changed_classes) {
      std::size_t kept = h->body_hash != b->body_hash
                             ? 0
                             : unchanged_leading_fields(*h, *b, head_lines, base_lines, touched_head, touched_base);
      auto fields = fields_of(*h, head_lines);
      for (std::size_t i = kept; i < fields.size(); ++i)
        if (recorded.insert(fields[i]->id).second) record(file, changed_symbol(*fields[i], SymbolChange::changed));
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
    if (python && diff.status == FileStatus::added) drop_inert_added_module(file);
    if (file.symbols.empty() && (diff.new_lines.size() + diff.old_lines.size()) > 0)
      file.note = unchanged > 0 ? "formatting, comments or docstrings only" : "no code lines changed";
  }

  /// An added or changed name bound by an import (a variable with an import edge at head).
  void note_import(const ChangedSymbol& symbol) {
    if (symbol.kind != SymbolKind::variable || symbol.change == SymbolChange::deleted) return;
    if (import_sources_.count(symbol.id)) out_.imports.push_back({symbol.file, symbol.first_line, symbol.id, head_module_});
  }

  /// What note_import needs of one file's head facts, found once per file.
  void index_imports(const FileFacts* head) {
    import_sources_.clear();
    head_module_.clear();
    if (!head) return;
    for (const auto& e : head->edges)
      if (e.kind == frontend::EdgeKind::import) import_sources_.insert(e.from);
    for (const auto& s : head->symbols)
      if (s.kind == SymbolKind::module) head_module_ = s.id;
  }

  /// Whether every changed module-level code line of the current file, on both sides, is a
  /// `from __future__ import` line; `annotations` tells whether one of them names that feature.
  bool only_future_imports(bool& annotations) const {
    annotations = false;
    if (module_lines_.empty()) return false;
    for (const auto& l : module_lines_) {
      std::string text = summarize(l.text);
      if (!text.starts_with("from __future__ import ")) return false;
      if (text.find("annotations") != std::string::npos) annotations = true;
    }
    return true;
  }

  /// `from __future__ import annotations` added or removed: the module's annotations become strings
  /// no code evaluates at definition time (or are evaluated again). Only code that reads annotations
  /// sees it (dataclasses, pydantic, `typing.get_type_hints`, `functools.singledispatch`,
  /// `torch.jit.script`), always through the annotated object: every definition of the module counts
  /// as changed, and the importers are collected on CPU for what such code does at import.
  void postpone_annotations(ChangedFile& file, const FileFacts& head, int line) {
    std::set<std::string> recorded(file.symbols.begin(), file.symbols.end());
    for (const auto& s : head.symbols)
      if ((s.kind == SymbolKind::function || s.kind == SymbolKind::method || s.kind == SymbolKind::class_) &&
          recorded.insert(s.id).second)
        record(file, changed_symbol(s, SymbolChange::changed));
    out_.imports.push_back({file.path, line, "__future__.annotations", head_module_});
    file.note = "`from __future__ import annotations` changed: every definition of the module counts as changed "
                "(annotations are read through them), and its importers are collected";
  }

  /// An added module runs on import only what its own code does. Without code of its own (only
  /// its docstring, `from __future__` lines, definitions, imports and assignments, which are symbols
  /// reached by their readers), it is what a modified module whose own code is unchanged is: not a
  /// change its importers meet by importing it. Its imports are still collected (out_.imports).
  void drop_inert_added_module(ChangedFile& file) {
    if (has_own_code()) return;
    auto module = std::find_if(out_.symbols.begin(), out_.symbols.end(), [&](const ChangedSymbol& s) {
      return s.kind == SymbolKind::module && s.file == file.path && s.change == SymbolChange::added;
    });
    if (module == out_.symbols.end()) return;
    std::erase(file.symbols, module->id);
    out_.symbols.erase(module);
    file.note = "added module without module-level code of its own (definitions, imports and assignments): "
                "importing it runs none, so its importers are not selected for the import; its names reach their readers";
  }

  /// Whether module-level lines of the current file hold code of the module's own: something but its
  /// docstring and `from __future__` imports (compiler directives).
  bool has_own_code() const {
    std::size_t i = 0;
    if (!module_lines_.empty()) {
      std::string first = summarize(module_lines_[0].text);
      for (std::string quote : {"\"\"\"", "'''", "r\"\"\"", "r'''"}) {
        if (!first.starts_with(quote)) continue;
        std::string close = quote.substr(quote[0] == 'r' ? 1 : 0);
        bool closed = first.find(close, quote.size()) != std::string::npos;
        while (!closed && ++i < module_lines_.size()) closed = module_lines_[i].text.find(close) != std::string::npos;
        ++i;
        break;
      }
    }
    for (; i < module_lines_.size(); ++i)
      if (!summarize(module_lines_[i].text).starts_with("from __future__ import ")) return true;
    return false;
  }

  /// A module's own code changed (a statement that binds no name: a call, a condition, a loop, a
  /// `try` around imports): it runs when the module is imported, so every importer is affected.
  void widen_module(const ChangedFile& file, const Symbol& module) {
    const std::string where = first_module_line();
    out_.widenings.push_back({Widening::Scope::importers, file.path,
                              "module-level code that binds no name changed at " + where +
                                  "; it runs on import: every test that imports the module is selected",
                              module.id});
  }

  /// The tokens of a C/C++/CUDA file outside every declaration changed: an `#include`, a
  /// conditional-compilation line, a namespace, a forward declaration. What they change is in every
  /// unit reading the file, so those units count as changed, said with the first such line. A file
  /// whose file-level tokens but its includes are the same at both sides (`only_includes`, from the
  /// frontend's second hash) is mapped include by include instead.
  void widen_native_file(ChangedFile& file, FileStatus status, bool only_includes) {
    if (status == FileStatus::modified && only_includes) {
      for (const auto& l : module_lines_)
        if (parse_include_directive(l.text)) out_.includes.push_back({file.path, l.line, summarize(l.text), l.head});
      return;
    }
    const std::string where = first_module_line();
    out_.widenings.push_back({Widening::Scope::native_units, file.path,
                              "code outside every declaration changed at " + where +
                                  " (includes, conditional compilation, namespaces): every unit that reads the file "
                                  "counts as changed",
                              {}});
  }

  /// "line 12 (`#include "x.h"`)": the first changed line outside every definition, head first.
  std::string first_module_line() const {
    const auto& lines = module_lines_.empty() ? shared_lines_ : module_lines_;
    if (lines.empty()) return "an unknown line";
    return "line " + std::to_string(lines.front().line) + " (`" + summarize(lines.front().text) + "`)";
  }

  static std::string summarize(const std::string& text) {
    auto start = text.find_first_not_of(" \t");
    std::string s = start == std::string::npos ? std::string() : text.substr(start);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
  }

  void record(ChangedFile& file, ChangedSymbol symbol) {
    note_import(symbol);
    file.symbols.push_back(symbol.id);
    out_.symbols.push_back(std::move(symbol));
  }

  /// A removed explicit instantiation or prototype leaves its function's callers without it (a
  /// link or compile error): the function counts as changed, under its id at head.
  void record_declared_function(ChangedFile& file, const Symbol& declaration) {
    for (const char* prefix : {"cpp-inst:", "cpp-proto:"}) {
      if (!declaration.id.starts_with(prefix)) continue;
      const std::string rest = declaration.id.substr(std::string(prefix).size());
      const std::string function = rest.substr(0, rest.rfind('@'));
      ChangedSymbol symbol = changed_symbol(declaration, SymbolChange::changed);
      symbol.id = function;
      symbol.kind = SymbolKind::function;
      symbol.qualified_name = function.substr(function.find(':') + 1);
      record(file, std::move(symbol));
    }
  }

  /// Pairs deleted and added symbols with the same body (moved or renamed code). Variables are
  /// not paired: a renamed name is read by other code, which its readers' own changes show.
  void detect_renames() {
    std::multimap<std::pair<int, std::uint64_t>, const ChangedSymbol*> deleted;
    for (const auto& s : out_.symbols)
      if (s.change == SymbolChange::deleted && hashes_[s.id] != 0)
        deleted.emplace(std::make_pair(static_cast<int>(s.kind), hashes_[s.id]), &s);
    for (auto& added : out_.symbols) {
      if (added.change != SymbolChange::added || added.kind == SymbolKind::module ||
          added.kind == SymbolKind::variable)
        continue;
      auto it = deleted.find({static_cast<int>(added.kind), hashes_[added.id]});
      if (it == deleted.end() || hashes_[added.id] == 0) continue;
      added.change = SymbolChange::renamed;
      added.renamed_from = it->second->id;
    }
  }

 private:
  void touch(const SymbolLines& lines, int line, const std::string& text, bool python,
             std::set<std::string>& touched) {
    if (!lines.present()) return;
    auto symbols = lines.innermost(line);
    if (symbols.empty()) {
      if (!python && !is_trivial_line(text, false)) ++outside_functions_;
      return;
    }
    // Blank and comment lines at module level are not code; inside a definition the body hash
    // decides (it ignores them).
    if (symbols.front()->kind == SymbolKind::module) {
      if (is_trivial_line(text, python)) return;
      module_lines_.push_back({line, text, head_side_});
    }
    // Tokens outside every symbol can share a line with one (an attribute, a second declaration):
    // the file's own symbol compares them too, by token hash, so touching it costs nothing.
    if (!python && lines.module() && symbols.front() != lines.module()) {
      touched.insert(lines.module()->id);
      // Only a declaration's first or last line can hold file-level tokens too (`namespace a { void
      // f() {`, `} }`); a line strictly inside every declaration holding it is theirs alone.
      bool edge = std::any_of(symbols.begin(), symbols.end(),
                              [&](const Symbol* s) { return line == s->first_line || line == s->last_line; });
      if (edge && !is_trivial_line(text, false)) shared_lines_.push_back({line, text, head_side_});
    }
    for (const Symbol* s : symbols) {
      touched.insert(s->id);
      // A class's fields shape its generated __init__: the class compares its own hash too.
      if (s->kind == SymbolKind::variable)
        if (const Symbol* owner = lines.enclosing_class(*s)) touched.insert(owner->id);
    }
  }

  /// A class's own variables (its fields and class attributes), in line order.
  static std::vector<const Symbol*> fields_of(const Symbol& owner, const SymbolLines& lines) {
    std::vector<const Symbol*> out;
    for (const Symbol* v : lines.variables())
      if (lines.enclosing_class(*v) == &owner) out.push_back(v);
    std::stable_sort(out.begin(), out.end(), [](const Symbol* a, const Symbol* b) { return a->first_line < b->first_line; });
    return out;
  }

  /// How many leading fields of a class are the same names in the same order on both sides, none
  /// of their lines changed.
  static std::size_t unchanged_leading_fields(const Symbol& head, const Symbol& base, const SymbolLines& head_lines,
                                              const SymbolLines& base_lines, const std::set<std::string>& touched_head,
                                              const std::set<std::string>& touched_base) {
    auto now = fields_of(head, head_lines), before = fields_of(base, base_lines);
    std::size_t kept = 0;
    while (kept < now.size() && kept < before.size() && now[kept]->qualified_name == before[kept]->qualified_name &&
           !touched_head.count(now[kept]->id) && !touched_base.count(before[kept]->id))
      ++kept;
    return kept;
  }

  ChangeSet& out_;
  std::unordered_set<std::string> import_sources_;  ///< symbols of the current file with an import edge
  std::string head_module_;                         ///< the current file's module symbol
  std::unordered_map<std::string, std::uint64_t> hashes_;  ///< body hashes of added (head) and deleted (base) symbols
  struct ModuleLine {
    int line = 0;
    std::string text;
    bool head = true;  ///< a line of the head side (else of the base side)
  };
  std::vector<ModuleLine> module_lines_;  ///< module-level code lines of the current file, head first
  std::vector<ModuleLine> shared_lines_;  ///< C/C++ lines a declaration shares with file-level tokens
  bool head_side_ = true;                 ///< which side touch() is reading
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
  for (const auto& diff : diffs) {
    ChangedFile file;
    file.status = diff.status;
    file.path = diff.status == FileStatus::deleted ? diff.old_path : diff.new_path;
    if (diff.status == FileStatus::renamed) file.old_path = diff.old_path;
    file.lines_added = static_cast<int>(diff.new_lines.size());
    file.lines_removed = static_cast<int>(diff.old_lines.size());
    const FileFacts* b = diff.status == FileStatus::added ? nullptr : base_facts(diff.old_path);
    const FileFacts* h = diff.status == FileStatus::deleted ? nullptr : head_facts(diff.new_path);
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
    } else if ((b || h) && (is_python(file.path) || callgraph::is_native_source(file.path))) {
      file.kind = is_python(file.path) ? FileKind::python : FileKind::native;
      if (diff.binary) {
        out.widenings.push_back({Widening::Scope::everything, file.path,
                                 "source file became binary: cannot map the change", {}});
      } else {
        builder.add_code_file(diff, file, b, h);
      }
    } else if (callgraph::is_native_source(file.path)) {
      file.kind = FileKind::native;
      out.widenings.push_back({Widening::Scope::everything, file.path, kNativeWithoutFacts, {}});
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
        out.widenings.push_back({Widening::Scope::everything, file.path, kUnknownKindWidening, {}});
      else
        file.note = "ignored: unknown_files = \"ignore\"";
    }
    // Path rules add to whatever the file's kind selects (a kernel folder may map to op tests).
    for (const auto& rule : config.rules)
      if (file.kind != FileKind::ignored && any_match(rule.paths, file.path))
        out.widenings.push_back({Widening::Scope::rule, file.path, "rule '" + rule.name + "'", rule.name});
    out.files.push_back(std::move(file));
  }
  builder.detect_renames();
  return out;
}

}  // namespace fastci::planner
