#pragma once
/// Internal: which files of a parsed unit belong to the repository, named repository-relative.

#include <clang/Basic/SourceManager.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <optional>
#include <string>
#include <unordered_map>

namespace fastci::frontend::cpp {

/// Decides which files belong to the repository and names them repository-relative.
class RepositoryFiles {
 public:
  RepositoryFiles(const clang::SourceManager& sources, std::string repository)
      : sources_(sources), repository_(std::move(repository)) {}

  /// The repository-relative path of the file holding `location` (macro uses count where
  /// expanded), or nullptr when the file lies outside the repository.
  const std::string* relative(clang::SourceLocation location) {
    if (location.isInvalid()) return nullptr;
    const clang::FileID file = sources_.getFileID(sources_.getExpansionLoc(location));
    auto [entry, inserted] = cache_.try_emplace(file.getHashValue());
    if (inserted) {
      if (clang::OptionalFileEntryRef ref = sources_.getFileEntryRefForID(file))
        entry->second = relative_path(ref->getName());
    }
    return entry->second ? &*entry->second : nullptr;
  }

  /// The repository-relative form of a file name, or nothing when it lies outside.
  std::optional<std::string> relative_path(llvm::StringRef name) const {
    llvm::SmallString<256> path(name);
    llvm::sys::fs::make_absolute(path);
    llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
    llvm::StringRef text = path.str();
    if (!text.starts_with(repository_) || text.size() <= repository_.size() ||
        text[repository_.size()] != '/')
      return std::nullopt;
    return text.substr(repository_.size() + 1).str();
  }

 private:
  const clang::SourceManager& sources_;
  std::string repository_;
  std::unordered_map<unsigned, std::optional<std::string>> cache_;
};

}  // namespace fastci::frontend::cpp
