#pragma once
/// Test support: a folder of the source tree as the SourceFiles index_repository reads.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "callgraph/index.h"
#include "util/file.h"
#include "util/hash.h"

namespace fastci::callgraph::testing {

/// Every regular file below `root`, named relative to it, hashed by content; sorted by path.
inline std::vector<SourceFile> files_below(const std::filesystem::path& root) {
  std::vector<SourceFile> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::string path = std::filesystem::relative(entry.path(), root).generic_string();
    auto content = util::read_file(entry.path());
    out.push_back({path, util::content_hash(*content), [content] { return content; }, false});
  }
  std::sort(out.begin(), out.end(), [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return out;
}

}  // namespace fastci::callgraph::testing
