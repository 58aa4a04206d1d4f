#include "callgraph/index.h"

#include <gtest/gtest.h>

namespace fastci::callgraph {
namespace {

SourceFile in_memory(const std::string& path, const std::string& content, bool symlink = false) {
  return {path, path + ":" + std::to_string(content.size()), [content] { return util::Result<std::string>(content); },
          symlink};
}

bool has_edge(const frontend::RepositoryFacts& facts, const std::string& from, const std::string& to) {
  for (const auto& f : facts.files)
    for (const auto& e : f.edges)
      if (e.from == from && e.to == to) return true;
  return false;
}

TEST(Index, PackagesImportedThroughADirectorySymlinkResolve) {
  // DeepSpeed: deepspeed/accelerator is a symlink to ../accelerator; tests import deepspeed.accelerator.
  std::vector<SourceFile> files = {
      in_memory("accelerator/__init__.py", "from .real_accelerator import get_accelerator\n"),
      in_memory("accelerator/real_accelerator.py", "def get_accelerator():\n    return 1\n"),
      in_memory("deepspeed/__init__.py", ""),
      in_memory("deepspeed/accelerator", "../accelerator/", true),
      in_memory("deepspeed/escape", "../../outside", true),
      in_memory("tests/test_accel.py",
                "from deepspeed.accelerator import get_accelerator\n\n\ndef test_accel():\n    get_accelerator()\n"),
  };
  auto cache = IndexCache::disabled();
  IndexOptions options;
  options.show_progress = false;
  auto index = index_repository(files, *cache, options);
  EXPECT_TRUE(has_edge(index.facts, "py:tests.test_accel.test_accel", "py:accelerator.real_accelerator.get_accelerator"));
  // a link that leaves the repository names nothing
  EXPECT_FALSE(has_edge(index.facts, "py:tests.test_accel.test_accel", "?deepspeed.accelerator.get_accelerator"));
}

}  // namespace
}  // namespace fastci::callgraph
