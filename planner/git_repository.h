#pragma once
/// Read-only access to a git repository through libgit2: resolve refs, list and read a commit's
/// files, and diff two commits into exact line hunks. Never runs git or a shell.

#include <array>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

struct git_repository;

namespace fastci::planner {

/// A file of a commit's tree.
struct TreeFile {
  std::string path;     ///< repository-relative, '/' separated
  std::string blob_id;  ///< git object id (hex): a content hash for free
  bool is_symlink = false;
  std::size_t size = 0;
};

/// How a file changed between two commits.
enum class FileStatus { added, deleted, modified, renamed, type_changed };

/// Changed lines of one file: old-side lines removed/replaced, new-side lines added/replaced.
struct FileDiff {
  std::string old_path;
  std::string new_path;
  FileStatus status = FileStatus::modified;
  bool binary = false;
  std::vector<int> old_lines;  ///< 1-based lines of the old file that were removed or replaced
  std::vector<int> new_lines;  ///< 1-based lines of the new file that were added or replaced
  /// Hunks as (old_start, old_count, new_start, new_count), to carry line numbers across.
  std::vector<std::array<int, 4>> hunks;
  std::vector<std::string> old_text;  ///< removed lines' text, parallel to old_lines
  std::vector<std::string> new_text;  ///< added lines' text, parallel to new_lines
};

/// A libgit2 repository handle.
class GitRepository {
 public:
  /// Opens the repository at or above `path`; fails with the path and libgit2's reason.
  static util::Result<std::unique_ptr<GitRepository>> open(const std::filesystem::path& path);
  ~GitRepository();

  /// Full commit id for a ref, tag, branch or abbreviated id; fails naming the ref.
  util::Result<std::string> resolve(const std::string& ref) const;
  /// The best common ancestor of two commits: where a pull request's branch left its target.
  /// Fails naming both commits, and the fetch that fixes it in a shallow clone.
  util::Result<std::string> merge_base(const std::string& a, const std::string& b) const;
  /// Whether the clone is shallow (history cut off; CI checkouts often are).
  bool is_shallow() const;
  /// Every blob of the commit's tree (submodules skipped).
  util::Result<std::vector<TreeFile>> list_files(const std::string& commit) const;
  /// Contents of a blob by id.
  util::Result<std::string> read_blob(const std::string& blob_id) const;
  /// Contents of `path` at `commit`, or an error when absent.
  util::Result<std::string> read_file(const std::string& commit, const std::string& path) const;
  /// Line-exact diff of two commits, renames detected.
  util::Result<std::vector<FileDiff>> diff(const std::string& base_commit,
                                           const std::string& head_commit) const;
  /// Line-exact diff of one file between two commits (no rename detection); empty when equal.
  util::Result<FileDiff> diff_file(const std::string& old_commit, const std::string& new_commit,
                                   const std::string& path) const;
  /// The work tree root (empty for a bare repository).
  std::filesystem::path work_tree() const;

 private:
  GitRepository() = default;
  git_repository* repo_ = nullptr;
};

/// Lowercase name of a file status.
const char* to_string(FileStatus status);

}  // namespace fastci::planner
