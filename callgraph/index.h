#pragma once
/// Indexing a repository: every source file through its frontend (served from the index cache
/// when its content is unchanged), then cross-file linking into RepositoryFacts.

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "callgraph/extension_links.h"
#include "callgraph/index_cache.h"
#include "frontend/facts.h"
#include "util/result.h"

namespace fastci::callgraph {

/// A file of the analysed tree; contents are loaded only on a cache miss.
struct SourceFile {
  std::string path;          ///< repository-relative
  std::string content_hash;  ///< any stable content hash (git blob id)
  std::function<util::Result<std::string>()> load;
  bool is_symlink = false;
};

/// Knobs of the indexer.
struct IndexOptions {
  unsigned threads = 2;
  bool show_progress = true;
  std::filesystem::path scratch_dir;  ///< where C++/CUDA sources are written for Clang on a cache miss
  bool release_link_state = true;     ///< false: the process ends soon; leave the resolver's memo to the exit
  /// The files of a tree analysed before (the base of a change), listed on demand: where the
  /// Python files differ from it only by edits the linker does not read (frontend/python/
  /// moved_lines.h), its linked facts are taken with those files' lines moved instead of linking.
  std::function<std::vector<SourceFile>()> neighbor;
  /// Linked trees the index cache keeps (the most recently used).
  int linked_trees_kept = 4;
};

/// The linked facts of a tree and what it cost.
struct IndexResult {
  frontend::RepositoryFacts facts;
  std::unordered_map<std::string, std::size_t> file_index;  ///< path -> facts.files position
  std::size_t files = 0;
  std::size_t parsed = 0;  ///< cache misses
  double parse_seconds = 0;
  double link_seconds = 0;
  bool linked_from_cache = false;  ///< the tree was analysed before: its linked facts came from the cache
  bool linked_from_neighbor = false;  ///< its linked facts are the neighbour's with lines moved (IndexOptions::neighbor)
  std::size_t native_units = 0;             ///< C++/CUDA translation units
  std::size_t native_parsed = 0;            ///< of them parsed by Clang this run (cache misses)
  std::size_t native_units_with_errors = 0; ///< units Clang reported errors in (facts kept)
  std::size_t python_to_native_links = 0;   ///< Python calls linked to bound C++ functions
  double native_seconds = 0;
  std::map<std::string, std::set<std::string>> includers;  ///< header -> units that read it
  std::vector<ResolvedExtension> extensions;               ///< extension modules and their sources

  /// Facts of one file, or nullptr.
  const frontend::FileFacts* find(const std::string& path) const;
  /// Every test of the tree.
  std::vector<frontend::Test> tests() const;
};

/// Whether the Python frontend indexes a path (C++/CUDA: native_index.h).
bool is_indexed_source(const std::string& path);

/// Parses and links every indexed file of `files`.
IndexResult index_repository(const std::vector<SourceFile>& files, IndexCache& cache,
                             const IndexOptions& options);

/// Facts of C++/CUDA files at one commit (base side of a diff): the units named, split by file,
/// their bindings named after `extensions`.
std::vector<frontend::FileFacts> native_facts_of_units(const std::vector<SourceFile>& files,
                                                       const std::set<std::string>& units, IndexCache& cache,
                                                       const IndexOptions& options,
                                                       const std::vector<ResolvedExtension>& extensions);

/// Unlinked facts of one file (symbols with lines and body hashes), for the base side of a diff.
frontend::FileFacts parse_file(const std::string& path, const std::string& content);

/// Identifies the frontend build in the cache, so entries of older versions are not reused.
std::string frontend_version();

}  // namespace fastci::callgraph
