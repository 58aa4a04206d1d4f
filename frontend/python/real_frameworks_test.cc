// Real framework code (Megatron-LM, DeepSpeed work trees under /work/ext), read at test time
// when present; CI without them skips.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "frontend/python/link_modules.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

namespace fs = std::filesystem;

fs::path ext_root() {
  if (const char* custom = std::getenv("FASTCI_EXT_DIR")) return custom;
  return "/work/ext";
}

TEST(RealFrameworks, MegatronTransformerLayerLinks) {
  fs::path root = ext_root() / "Megatron-LM";
  if (!fs::exists(root / "megatron/core/transformer/transformer_layer.py"))
    GTEST_SKIP() << "no Megatron-LM work tree at " << root;
  auto records = testing::parse_folder(root, root / "megatron/core/transformer");
  auto more = testing::parse_folder(root, root / "megatron/core/tensor_parallel");
  for (auto& r : more) records.push_back(std::move(r));
  std::size_t modules = records.size();
  auto facts = link_modules(std::move(records));
  ASSERT_EQ(facts.files.size(), modules);
  std::size_t symbols = 0, resolved = 0, placeholders = 0;
  bool layer = false, override_edge = false;
  for (const auto& file : facts.files) {
    symbols += file.symbols.size();
    for (const auto& s : file.symbols)
      layer |= s.id == "py:megatron.core.transformer.transformer_layer.TransformerLayer.forward";
    for (const auto& e : file.edges) {
      if (e.kind != EdgeKind::call && e.kind != EdgeKind::virtual_call) continue;
      (e.to[0] == '?' ? placeholders : resolved)++;
    }
    for (const auto& e : file.edges) override_edge |= e.kind == EdgeKind::override_;
  }
  EXPECT_TRUE(layer);
  EXPECT_TRUE(override_edge);
  EXPECT_GT(symbols, 500u);
  EXPECT_GT(resolved, 1000u);
  EXPECT_GT(placeholders, 0u);
}

TEST(RealFrameworks, DeepSpeedUnitTestsAreDiscovered) {
  fs::path root = ext_root() / "DeepSpeed";
  if (!fs::exists(root / "tests/unit/common.py")) GTEST_SKIP() << "no DeepSpeed work tree at " << root;
  auto records = testing::parse_folder(root, root / "tests/unit/runtime/zero");
  auto common = testing::parse_folder(root, root / "tests/unit");
  std::vector<ModuleRecord> selected;
  for (auto& r : common)
    if (r.facts.path == "tests/unit/common.py" || r.facts.path == "tests/unit/conftest.py" ||
        r.facts.path == "tests/conftest.py" || r.facts.path.rfind("tests/unit/runtime/zero/", 0) == 0 ||
        r.facts.path == "tests/unit/simple_model.py")
      selected.push_back(std::move(r));
  auto facts = link_modules(std::move(selected));
  std::size_t tests = 0, with_gpus = 0, parametrized = 0;
  for (const auto& file : facts.files)
    for (const auto& t : file.tests) {
      ++tests;
      with_gpus += t.gpus > 0;
      parametrized += t.id.find('[') != std::string::npos;
    }
  EXPECT_GT(tests, 100u);
  EXPECT_GT(with_gpus, tests / 2);  // DistributedTest classes declare world_size
  EXPECT_GT(parametrized, 50u);
}

/// Each file's edges to repository symbols ("py:..."), sorted: what linking found, whatever order.
std::map<std::string, std::vector<std::string>> repository_edges(const RepositoryFacts& facts) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& file : facts.files) {
    auto& edges = out[file.path];
    for (const auto& e : file.edges)
      if (!e.to.starts_with("?"))
        edges.push_back(e.from + " " + e.to + " " + std::to_string(e.line) + " " + std::to_string(static_cast<int>(e.kind)));
    std::sort(edges.begin(), edges.end());
  }
  return out;
}

/// Links a folder's modules in path order and in reverse: the edges to repository code must be the
/// same (an answer must not depend on which question was asked first; library placeholders may differ
/// where a cycle's library values grow apart).
void expect_same_edges_in_either_order(const fs::path& root, const fs::path& folder) {
  auto records = testing::parse_folder(root, folder);
  auto copy = records;
  auto forward = repository_edges(link_modules(std::move(records)));
  auto backward = repository_edges(link_modules(std::move(copy), {}, true, LinkOrder::reversed));
  ASSERT_EQ(forward.size(), backward.size());
  std::vector<std::string> only_forward, only_backward;
  for (const auto& [path, edges] : forward) {
    const auto& other = backward[path];
    std::set_difference(edges.begin(), edges.end(), other.begin(), other.end(), std::back_inserter(only_forward));
    std::set_difference(other.begin(), other.end(), edges.begin(), edges.end(), std::back_inserter(only_backward));
  }
  auto first = [](const std::vector<std::string>& lines) {
    std::string out;
    for (std::size_t i = 0; i < lines.size() && i < 12; ++i) out += "\n  " + lines[i];
    return out;
  };
  EXPECT_TRUE(only_forward.empty()) << only_forward.size() << " edges only in path order:" << first(only_forward);
  EXPECT_TRUE(only_backward.empty()) << only_backward.size() << " edges only in reverse order:" << first(only_backward);
}

TEST(RealFrameworks, MegatronEdgesDoNotDependOnLinkOrder) {
  fs::path root = ext_root() / "Megatron-LM";
  if (!fs::exists(root / "megatron/core/pipeline_parallel/utils.py")) GTEST_SKIP() << "no Megatron-LM work tree at " << root;
  expect_same_edges_in_either_order(root, root / "megatron");
}

TEST(RealFrameworks, DeepSpeedEdgesDoNotDependOnLinkOrder) {
  fs::path root = ext_root() / "DeepSpeed";
  if (!fs::exists(root / "deepspeed/runtime/zero/parameter_offload.py")) GTEST_SKIP() << "no DeepSpeed work tree at " << root;
  expect_same_edges_in_either_order(root, root / "deepspeed");
}

}  // namespace
}  // namespace fastci::frontend::python
