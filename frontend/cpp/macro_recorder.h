#pragma once
/// Internal: the repository's macro definitions and every expansion of them, recorded while Clang
/// preprocesses one unit, so a changed `#define` reaches the code that expands it and nothing else.

#include <clang/Basic/SourceLocation.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class CompilerInstance;
}  // namespace clang

namespace fastci::frontend::cpp {

class RepositoryFiles;

/// One `#define` in a repository file.
struct MacroDefinition {
  std::string id;    ///< "cpp-macro:<file>:<NAME>", "#2" on for later definitions of the name in that file
  std::string name;
  std::string file;  ///< repository-relative
  int first_line = 0, last_line = 0;
  std::uint64_t hash = 0;  ///< of the name, parameters and replacement tokens: layout does not count
};

/// What the preprocessor saw of repository macros.
struct MacroFacts {
  std::vector<MacroDefinition> definitions;
  /// (definition index, file location of the outermost expansion): a macro expanded inside another
  /// macro's expansion is attributed where the outer one was written.
  std::vector<std::pair<std::size_t, clang::SourceLocation>> expansions;
};

/// Installs preprocessor callbacks that fill `out` with macros defined in repository files;
/// `files` must outlive the preprocessor.
void record_macros(clang::CompilerInstance& compiler, RepositoryFiles& files, std::shared_ptr<MacroFacts> out);

}  // namespace fastci::frontend::cpp
