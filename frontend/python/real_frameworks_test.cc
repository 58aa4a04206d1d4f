// Real framework code (Megatron-LM, DeepSpeed work trees under /work/ext), read at test time
// when present; CI without them skips.

#include <gtest/gtest.h>

#include <filesystem>

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

}  // namespace
}  // namespace fastci::frontend::python
