#include "frontend/python/module_record.h"

#include <gtest/gtest.h>

#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

TEST(ModuleRecordCache, RoundTripsARealRecord) {
  auto source = util::read_file(testing::source_root() / "tests/fixtures/python/pytest_suite/test_params.py");
  ASSERT_TRUE(source.ok());
  auto record = parse_module("tests/fixtures/python/pytest_suite/test_params.py", *source);
  std::string bytes = serialize(record);
  auto back = deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(serialize(*back), bytes);
  EXPECT_EQ(back->scopes.size(), record.scopes.size());
  EXPECT_EQ(back->references.size(), record.references.size());
  EXPECT_EQ(back->facts.symbols[3].body_hash, record.facts.symbols[3].body_hash);
  bool parametrize = false;
  for (const auto& s : back->scopes)
    for (const auto& m : s.marks) parametrize |= m.parametrize.has_value() && !m.parametrize->sets.empty();
  EXPECT_TRUE(parametrize);
}

TEST(ModuleRecordCache, KeepsTheExtensionsASetupPyDeclares) {
  auto source = util::read_file(testing::source_root() / "tests/fixtures/cpp/ext/setup.py");
  ASSERT_TRUE(source.ok());
  auto record = parse_module("tests/fixtures/cpp/ext/setup.py", *source);
  ASSERT_EQ(record.extensions.size(), 1u);
  auto back = deserialize(serialize(record));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->extensions.size(), 1u);
  EXPECT_EQ(back->extensions[0].name, "fixture_ops");
  EXPECT_EQ(back->extensions[0].sources.size(), 3u);
  EXPECT_EQ(back->extensions[0].file, "tests/fixtures/cpp/ext/setup.py");
}

TEST(ModuleRecordCache, RejectsCorruptInput) {
  EXPECT_FALSE(deserialize("not json").ok());
  EXPECT_FALSE(deserialize("{}").ok());
  auto record = parse_module("a.py", "def f():\n    g()\n");
  std::string bytes = serialize(record);
  std::string broken = bytes;
  broken.replace(broken.find("fastci-python-module/6"), 22, "fastci-python-module/9");
  auto result = deserialize(broken);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("format"), std::string::npos);
  auto truncated = deserialize(bytes.substr(0, bytes.size() / 2));
  EXPECT_FALSE(truncated.ok());
}

}  // namespace
}  // namespace fastci::frontend::python
