#pragma once
/// The change under analysis: files and symbols changed between base and head, and every place
/// where fastci could not map the change exactly and widened instead.

#include <functional>
#include <string>
#include <vector>

#include "frontend/facts.h"
#include "planner/git_repository.h"
#include "planner/rules.h"

namespace fastci::planner {

/// How a symbol changed.
enum class SymbolChange { changed, added, deleted, renamed };

/// A symbol whose definition differs between base and head (by body hash, not by line overlap).
struct ChangedSymbol {
  std::string id;
  SymbolChange change = SymbolChange::changed;
  frontend::SymbolKind kind = frontend::SymbolKind::function;
  frontend::Language language = frontend::Language::python;
  std::string qualified_name;
  std::string file;
  int first_line = 0, last_line = 0;  ///< at head (at base for deleted symbols)
  std::string renamed_from;           ///< id at base, for renamed symbols
};

/// How fastci treats a changed file. data: not code, mapped to the code that names it (data_files.h).
enum class FileKind { python, native, select_all, ignored, rule, data, unknown };

/// One changed file and what came of it.
struct ChangedFile {
  std::string path;      ///< head path (base path for deleted files)
  std::string old_path;  ///< base path when renamed
  FileStatus status = FileStatus::modified;
  FileKind kind = FileKind::unknown;
  int lines_added = 0, lines_removed = 0;
  std::vector<std::string> symbols;  ///< ids of changed symbols in it
  std::string note;                  ///< e.g. "formatting or comments only"
};

/// Where the change could not be mapped to symbols exactly, and how selection widens for it.
struct Widening {
  /// native_units: every C++/CUDA unit reading `file` counts as changed (symbols added by analyze);
  /// symbol: the function named in `detail` counts as changed (Clang could not resolve its body)
  enum class Scope { everything, folder, importers, rule, test_file, native_units, symbol } scope = Scope::everything;
  std::string file;
  std::string reason;
  std::string detail;  ///< folder for `folder`, rule name for `rule`, module id for `importers`
};

/// An import statement that was added or changed: its effect is at import time (the imported
/// module's own code, or an ImportError), which a CPU-only collection of the importing tests shows.
struct ImportChange {
  std::string file;
  int line = 0;
  std::string variable;  ///< the symbol id of the name it binds
  std::string module;    ///< the symbol id of the module holding the import
};

/// An `#include` line of a C/C++/CUDA unit that was added or removed, where nothing else outside
/// the unit's declarations changed: include_changes.h maps it to the functions it affects.
struct IncludeChange {
  std::string file;
  int line = 0;          ///< at head when added, at base when removed
  std::string text;      ///< the directive as written
  bool added = true;
};

/// Everything the selector needs to know about base..head.
struct ChangeSet {
  std::string base, head;  ///< full commit ids
  std::vector<ChangedFile> files;
  std::vector<ChangedSymbol> symbols;
  /// Symbols whose docstrings alone changed: a change only for code that reads docstrings at run
  /// time (selection joins them with the readers of frontend::kDocstringsPlaceholder).
  std::vector<ChangedSymbol> docstrings;
  std::vector<ImportChange> imports;  ///< added or changed imports (a collection check each)
  std::vector<IncludeChange> includes;  ///< changed include lines (include_changes.h)
  std::vector<Widening> widenings;
};

/// The widening of a changed file of a kind no rule covers (data_files.h maps it where code names it).
inline constexpr const char* kUnknownKindWidening = "file of a kind no rule covers (configure [tool.fastci] ignore or rules)";

/// The widening of a C/C++/CUDA file no parsed unit gave facts for (see unread_headers.h).
inline constexpr const char* kNativeWithoutFacts = "C/C++/CUDA source without parsed facts: cannot map the change to symbols";

/// Per-file facts at one side of the diff; nullptr when the file has none (not code, absent).
using FactsLookup = std::function<const frontend::FileFacts*(const std::string& path)>;

/// Maps a diff onto symbols. `base_facts` are the facts of changed files at base, `head_facts`
/// at head; files without facts go through `config`'s rules.
ChangeSet build_change_set(const std::string& base, const std::string& head,
                           const std::vector<FileDiff>& diffs, const FactsLookup& base_facts,
                           const FactsLookup& head_facts, const Config& config);

const char* to_string(SymbolChange change);
const char* to_string(FileKind kind);
const char* to_string(Widening::Scope scope);

}  // namespace fastci::planner
