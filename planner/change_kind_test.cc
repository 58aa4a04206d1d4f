#include "planner/change_kind.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "planner/analyze.h"
#include "planner/git_test_support.h"

namespace fastci::planner {
namespace {

namespace fs = std::filesystem;

/// A small framework: a comm layer over torch.distributed, an engine using it, a function named like
/// communication that is not, and a numerical one; indexed by the real Python frontend.
class ChangeKindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fastci_change_kind_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "pkg");
    write("pkg/__init__.py", "");
    write("pkg/comm.py",
          "import torch.distributed as dist\n"
          "\n"
          "def all_reduce(t):\n"
          "    dist.all_reduce(t)\n"
          "    return t\n"
          "\n"
          "def timed(fn):\n"
          "    def wrapper(*args):\n"
          "        return fn(*args)\n"
          "    return wrapper\n"
          "\n"
          "@timed\n"
          "def broadcast(t):\n"
          "    dist.broadcast(t, 0)\n");
    write("pkg/engine.py",
          "import torch\n"
          "from pkg.comm import all_reduce\n"
          "\n"
          "def reduce_grads(grads):\n"
          "    for g in grads:\n"
          "        all_reduce(g)\n"
          "\n"
          "def comm_backend_name():\n"
          "    return 'nccl'\n"
          "\n"
          "def scaled_loss(loss, scale):\n"
          "    return torch.autocast('cuda').__enter__() or loss.float() * scale\n"
          "\n"
          "def normalize_path(p):\n"
          "    return p.strip('/')\n"
          "\n"
          "def sync(t):\n"
          "    from pkg.comm import broadcast\n"
          "    broadcast(t)\n");
    commit_ = commit_all(dir_, "base");
    auto repo = GitRepository::open(dir_);
    ASSERT_TRUE(repo.ok()) << repo.error().to_string();
    repo_ = std::move(*repo);
    AnalyzeOptions options;
    options.repository = dir_;
    options.use_cache = false;
    options.show_progress = false;
    auto cache = open_index_cache(options);
    ASSERT_TRUE(cache.ok()) << cache.error().to_string();
    auto index = index_commit(*repo_, commit_, **cache, options);
    ASSERT_TRUE(index.ok()) << index.error().to_string();
    index_ = std::move(*index);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& path, const std::string& text) { std::ofstream(dir_ / path) << text; }

  ChangeKinds kinds(const std::string& name) {
    ChangedSymbol s;
    s.id = "py:" + name;
    s.qualified_name = name;
    auto all = change_kinds({s}, index_.graph, nullptr);
    return all.at(s.id);
  }

  fs::path dir_;
  std::string commit_;
  std::unique_ptr<GitRepository> repo_;
  CommitIndex index_;  ///< the graph with the facts it refers to
};

TEST_F(ChangeKindTest, ParallelismIsCallingTorchDistributedDirectlyOrThroughTheCommLayer) {
  auto direct = kinds("pkg.comm.all_reduce");
  EXPECT_TRUE(direct.parallel) << direct.why;
  EXPECT_NE(direct.why.find("torch.distributed.all_reduce"), std::string::npos) << direct.why;
  auto layered = kinds("pkg.engine.reduce_grads");
  EXPECT_TRUE(layered.parallel) << layered.why;
  EXPECT_NE(layered.why.find("pkg.comm.all_reduce (which calls torch.distributed)"), std::string::npos)
      << layered.why;
  // Through a decorated function: the call runs the decorator's wrapper; the definition is a
  // reference edge (docs/static-selection.md), still what the change runs.
  auto wrapped = kinds("pkg.engine.sync");
  EXPECT_TRUE(wrapped.parallel) << wrapped.why;
  EXPECT_NE(wrapped.why.find("pkg.comm.broadcast (which calls torch.distributed)"), std::string::npos) << wrapped.why;
  // Named like communication, calls nothing of it.
  auto named = kinds("pkg.engine.comm_backend_name");
  EXPECT_FALSE(named.parallel);
  EXPECT_FALSE(named.numerics);
}

TEST_F(ChangeKindTest, NumericsIsCallingCastsAutocastAndReductions) {
  auto loss = kinds("pkg.engine.scaled_loss");
  EXPECT_TRUE(loss.numerics) << loss.why;
  EXPECT_FALSE(loss.parallel);
  // "normalize" in a name is not numerics; a string method is not a tensor cast.
  auto path = kinds("pkg.engine.normalize_path");
  EXPECT_FALSE(path.numerics) << path.why;
  EXPECT_FALSE(kinds("pkg.comm.all_reduce").kernel);
}

}  // namespace
}  // namespace fastci::planner
