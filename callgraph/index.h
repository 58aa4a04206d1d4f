#pragma once
/// Indexing a repository: every source file through its frontend (served from the index cache
/// when its content is unchanged), then cross-file linking into RepositoryFacts.

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

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
};

/// The linked facts of a tree and what it cost.
struct IndexResult {
  frontend::RepositoryFacts facts;
  std::unordered_map<std::string, std::size_t> file_index;  ///< path -> facts.files position
  std::size_t files = 0;
  std::size_t parsed = 0;  ///< cache misses
  double parse_seconds = 0;
  double link_seconds = 0;

  /// Facts of one file, or nullptr.
  const frontend::FileFacts* find(const std::string& path) const;
  /// Every test of the tree.
  std::vector<frontend::Test> tests() const;
};

/// Whether fastci indexes a path (Python sources for now).
bool is_indexed_source(const std::string& path);

/// Parses and links every indexed file of `files`.
IndexResult index_repository(const std::vector<SourceFile>& files, IndexCache& cache,
                             const IndexOptions& options);

/// Unlinked facts of one file (symbols with lines and body hashes), for the base side of a diff.
frontend::FileFacts parse_file(const std::string& path, const std::string& content);

/// Identifies the frontend build in the cache, so entries of older versions are not reused.
std::string frontend_version();

}  // namespace fastci::callgraph
