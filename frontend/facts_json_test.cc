#include <gtest/gtest.h>

#include "frontend/facts_json.h"

namespace fastci::frontend {
namespace {

TEST(FactsJson, RoundTripsEveryField) {
  FileFacts f;
  f.path = "pkg/mod.py";
  f.content_hash = "abc";
  f.parsed = false;
  f.symbols.push_back({"py:pkg.mod.f", Language::python, SymbolKind::function, "pkg.mod.f",
                       "pkg/mod.py", 3, 9, 42});
  f.edges.push_back({"py:pkg.mod.f", "?torch.cat", EdgeKind::call, "pkg/mod.py", 4});
  f.launches.push_back({"cpp:host", "cuda:k<float>", "g", "b", "0", "s", {"float"}, "k.cu", 7});
  f.bindings.push_back({"ext", "softmax", "cpp:softmax", "CUDA", "b.cpp", 11});
  f.tests.push_back({"tests/t.py::test_a[1]", "py:tests.t.test_a", "tests/t.py", 5, {"py:fx"},
                     {"slow"}, 2, {{"num_layers", "4", KnobOrigin::parametrize, "tests/t.py", 4}}});
  f.imported_modules = {"torch"};
  f.diagnostics.push_back({Diagnostic::Severity::error, "pkg/mod.py", 2, "syntax error"});

  auto back = file_facts_from_json(to_json(f));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(to_json(*back), to_json(f));
  EXPECT_EQ(back->tests[0].knobs[0].origin, KnobOrigin::parametrize);
  EXPECT_FALSE(back->parsed);
}

TEST(FactsJson, AnEdgeWithoutAFileIsWrittenWithItsFactsFile) {
  FileFacts f;
  f.path = "pkg/mod.py";
  f.edges.push_back({"py:pkg.mod.f", "py:pkg.mod.g", EdgeKind::call, "", 4});
  EXPECT_EQ(to_json(f)["edges"][0]["file"], "pkg/mod.py");
}

TEST(FactsJson, RejectsMalformedInputWithoutThrowing) {
  auto bad = file_facts_from_json(nlohmann::json{{"path", 3}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("malformed"), std::string::npos);
}

}  // namespace
}  // namespace fastci::frontend
