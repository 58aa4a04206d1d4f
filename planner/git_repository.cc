#include "planner/git_repository.h"

#include <git2.h>

#include <mutex>

namespace fastci::planner {
namespace {

void ensure_initialized() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

util::Error git_failure(const std::string& what) {
  const git_error* e = git_error_last();
  return util::Error{what + (e && e->message ? std::string(": ") + e->message : std::string())};
}

/// RAII for libgit2 objects.
template <typename T, void (*Free)(T*)>
struct Owned {
  T* ptr = nullptr;
  ~Owned() { if (ptr) Free(ptr); }
  T** out() { return &ptr; }
};
using Object = Owned<git_object, git_object_free>;
using Commit = Owned<git_commit, git_commit_free>;
using Tree = Owned<git_tree, git_tree_free>;
using Blob = Owned<git_blob, git_blob_free>;
using Diff = Owned<git_diff, git_diff_free>;

std::string oid_hex(const git_oid* oid) {
  char buffer[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buffer, sizeof buffer, oid);
  return buffer;
}

util::Status commit_tree(git_repository* repo, const std::string& commit, Tree& tree) {
  git_oid oid;
  if (git_oid_fromstr(&oid, commit.c_str()) != 0) return git_failure("not a commit id '" + commit + "'");
  Commit c;
  if (git_commit_lookup(c.out(), repo, &oid) != 0) return git_failure("no commit " + commit);
  if (git_commit_tree(tree.out(), c.ptr) != 0) return git_failure("no tree for commit " + commit);
  return {};
}

struct DiffCollector {
  std::vector<FileDiff> files;
};

FileStatus status_of(git_delta_t status) {
  switch (status) {
    case GIT_DELTA_ADDED: return FileStatus::added;
    case GIT_DELTA_DELETED: return FileStatus::deleted;
    case GIT_DELTA_RENAMED: return FileStatus::renamed;
    case GIT_DELTA_TYPECHANGE: return FileStatus::type_changed;
    default: return FileStatus::modified;
  }
}

int on_file(const git_diff_delta* delta, float, void* payload) {
  auto* c = static_cast<DiffCollector*>(payload);
  FileDiff f;
  f.old_path = delta->old_file.path ? delta->old_file.path : "";
  f.new_path = delta->new_file.path ? delta->new_file.path : "";
  f.status = status_of(delta->status);
  f.binary = (delta->flags & GIT_DIFF_FLAG_BINARY) != 0;
  c->files.push_back(std::move(f));
  return 0;
}

int on_binary(const git_diff_delta*, const git_diff_binary*, void* payload) {
  static_cast<DiffCollector*>(payload)->files.back().binary = true;
  return 0;
}

int on_hunk(const git_diff_delta*, const git_diff_hunk* hunk, void* payload) {
  static_cast<DiffCollector*>(payload)->files.back().hunks.push_back(
      {hunk->old_start, hunk->old_lines, hunk->new_start, hunk->new_lines});
  return 0;
}

int on_line(const git_diff_delta*, const git_diff_hunk*, const git_diff_line* line, void* payload) {
  auto& f = static_cast<DiffCollector*>(payload)->files.back();
  std::string text(line->content, line->content_len);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (line->origin == GIT_DIFF_LINE_DELETION) {
    f.old_lines.push_back(line->old_lineno);
    f.old_text.push_back(std::move(text));
  } else if (line->origin == GIT_DIFF_LINE_ADDITION) {
    f.new_lines.push_back(line->new_lineno);
    f.new_text.push_back(std::move(text));
  }
  return 0;
}

}  // namespace

const char* to_string(FileStatus status) {
  switch (status) {
    case FileStatus::added: return "added";
    case FileStatus::deleted: return "deleted";
    case FileStatus::modified: return "modified";
    case FileStatus::renamed: return "renamed";
    case FileStatus::type_changed: return "type-changed";
  }
  return "unknown";
}

util::Result<std::unique_ptr<GitRepository>> GitRepository::open(const std::filesystem::path& path) {
  ensure_initialized();
  std::unique_ptr<GitRepository> result(new GitRepository());
  if (git_repository_open_ext(&result->repo_, path.c_str(), 0, nullptr) != 0) {
    auto e = git_failure("not a git repository");
    e.file = path.string();
    return e;
  }
  return result;
}

GitRepository::~GitRepository() { git_repository_free(repo_); }

std::filesystem::path GitRepository::work_tree() const {
  const char* dir = git_repository_workdir(repo_);
  return dir ? std::filesystem::path(dir) : std::filesystem::path();
}

util::Result<std::string> GitRepository::resolve(const std::string& ref) const {
  if (ref.empty() || ref.front() == '-') return util::Error{"invalid ref '" + ref + "'"};
  Object object;
  if (git_revparse_single(object.out(), repo_, ref.c_str()) != 0) {
    util::Error error = git_failure("unknown ref '" + ref + "'");
    // CI checkouts fetch one commit by default: the target branch is simply not there.
    if (is_shallow()) {
      std::string branch = ref.starts_with("origin/") ? ref.substr(7) : ref;
      error.message += "; the clone is shallow: fetch it first (`git fetch --deepen=200 origin " + branch +
                       "`, or a checkout with fetch-depth: 0)";
    }
    return error;
  }
  Object commit;
  if (git_object_peel(commit.out(), object.ptr, GIT_OBJECT_COMMIT) != 0)
    return git_failure("ref '" + ref + "' does not name a commit");
  return oid_hex(git_object_id(commit.ptr));
}

bool GitRepository::is_shallow() const { return git_repository_is_shallow(repo_) == 1; }

util::Result<std::string> GitRepository::merge_base(const std::string& a, const std::string& b) const {
  git_oid one, two, out;
  if (git_oid_fromstr(&one, a.c_str()) != 0) return git_failure("not a commit id '" + a + "'");
  if (git_oid_fromstr(&two, b.c_str()) != 0) return git_failure("not a commit id '" + b + "'");
  if (git_merge_base(&out, repo_, &one, &two) == 0) return oid_hex(&out);
  std::string what = "no common ancestor of " + a.substr(0, 12) + " and " + b.substr(0, 12);
  if (is_shallow())
    return util::Error{what + ": the clone is shallow; fetch the history both share (e.g. `git fetch "
                       "--unshallow`, or `git fetch --deepen=200 origin <target branch>`), or pass --diff=tree "
                       "to diff the two trees directly"};
  return git_failure(what + " (unrelated histories; --diff=tree diffs the two trees directly)");
}

util::Result<std::vector<TreeFile>> GitRepository::list_files(const std::string& commit) const {
  Tree tree;
  if (auto s = commit_tree(repo_, commit, tree); !s) return s.error();
  struct Walk {
    std::vector<TreeFile> files;
  } walk;
  auto callback = [](const char* root, const git_tree_entry* entry, void* payload) -> int {
    if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return 0;
    auto* w = static_cast<Walk*>(payload);
    TreeFile f;
    f.path = std::string(root) + git_tree_entry_name(entry);
    f.blob_id = oid_hex(git_tree_entry_id(entry));
    f.is_symlink = git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK;
    w->files.push_back(std::move(f));
    return 0;
  };
  if (git_tree_walk(tree.ptr, GIT_TREEWALK_PRE, callback, &walk) != 0)
    return git_failure("cannot walk the tree of " + commit);
  return std::move(walk.files);
}

util::Result<std::string> GitRepository::read_blob(const std::string& blob_id) const {
  git_oid oid;
  if (git_oid_fromstr(&oid, blob_id.c_str()) != 0) return util::Error{"not a blob id '" + blob_id + "'"};
  Blob blob;
  if (git_blob_lookup(blob.out(), repo_, &oid) != 0) return git_failure("no blob " + blob_id);
  auto size = static_cast<std::size_t>(git_blob_rawsize(blob.ptr));
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.ptr)), size);
}

util::Result<std::string> GitRepository::read_file(const std::string& commit,
                                                   const std::string& path) const {
  Tree tree;
  if (auto s = commit_tree(repo_, commit, tree); !s) return s.error();
  git_tree_entry* entry = nullptr;
  if (git_tree_entry_bypath(&entry, tree.ptr, path.c_str()) != 0)
    return util::Error{"no such file at " + commit.substr(0, 12), path};
  std::string id = oid_hex(git_tree_entry_id(entry));
  git_tree_entry_free(entry);
  return read_blob(id);
}

util::Result<std::vector<FileDiff>> GitRepository::diff(const std::string& base_commit,
                                                        const std::string& head_commit) const {
  Tree base, head;
  if (auto s = commit_tree(repo_, base_commit, base); !s) return s.error();
  if (auto s = commit_tree(repo_, head_commit, head); !s) return s.error();
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  options.context_lines = 0;
  options.interhunk_lines = 0;
  Diff diff;
  if (git_diff_tree_to_tree(diff.out(), repo_, base.ptr, head.ptr, &options) != 0)
    return git_failure("cannot diff " + base_commit + ".." + head_commit);
  git_diff_find_options find = GIT_DIFF_FIND_OPTIONS_INIT;
  find.flags = GIT_DIFF_FIND_RENAMES;
  if (git_diff_find_similar(diff.ptr, &find) != 0) return git_failure("rename detection failed");
  DiffCollector collector;
  if (git_diff_foreach(diff.ptr, on_file, on_binary, on_hunk, on_line, &collector) != 0)
    return git_failure("cannot read the diff");
  return std::move(collector.files);
}

util::Result<FileDiff> GitRepository::diff_file(const std::string& old_commit, const std::string& new_commit,
                                                 const std::string& path) const {
  Tree old_tree, new_tree;
  if (auto s = commit_tree(repo_, old_commit, old_tree); !s) return s.error();
  if (auto s = commit_tree(repo_, new_commit, new_tree); !s) return s.error();
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  options.context_lines = 0;
  options.interhunk_lines = 0;
  options.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
  char* paths[] = {const_cast<char*>(path.c_str())};
  options.pathspec = {paths, 1};
  Diff diff;
  if (git_diff_tree_to_tree(diff.out(), repo_, old_tree.ptr, new_tree.ptr, &options) != 0)
    return git_failure("cannot diff " + path);
  DiffCollector collector;
  if (git_diff_foreach(diff.ptr, on_file, on_binary, on_hunk, on_line, &collector) != 0)
    return git_failure("cannot read the diff of " + path);
  if (collector.files.empty()) {
    FileDiff unchanged;
    unchanged.old_path = unchanged.new_path = path;
    return unchanged;
  }
  return std::move(collector.files.front());
}

}  // namespace fastci::planner
