#include "frontend/python/module_record.h"

#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
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

TEST(ModuleRecordCache, KeepsAClassesFieldOrder) {
  auto record = parse_module("pkg/config.py", "class Config:\n    x: int = 1\n    \"\"\"What x is.\"\"\"\n    y: str = 'a'\n");
  ASSERT_EQ(record.facts.symbols[1].id, "py:pkg.config.Config");
  ASSERT_NE(record.facts.symbols[1].fields_hash, 0u);
  auto back = deserialize(serialize(record));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->facts.symbols[1].fields_hash, record.facts.symbols[1].fields_hash);
  EXPECT_EQ(back->facts.symbols[1].body_hash, record.facts.symbols[1].body_hash);
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

TEST(ModuleRecordCache, KeepsEveryFactField) {
  auto record = parse_module("pkg/m.py", "import os\nclass C(Base):\n    x: int = 1\n");
  auto& f = record.facts;
  f.edges.push_back({"py:pkg.m.C", "?Base", EdgeKind::read, "pkg/m.py", 2});
  f.launches.push_back({"cpp:h()", "cuda:k()", "g", "b", "0", "s", {"float", "4"}, "a.cu", 9});
  f.bindings.push_back({"ext", "f", "cpp:f()", "CPU", "a.cpp", 3});
  f.tests.push_back({"tests/t.py::test_a[1]", "py:tests.t.test_a", "tests/t.py", 4, {"py:fx"}, {"slow"}, 2,
                     {{"world_size", "2", KnobOrigin::declared, "tests/t.py", 3}}});
  f.imported_modules = {"os"};
  f.diagnostics.push_back({Diagnostic::Severity::warning, "pkg/m.py", 1, "note \xff"});
  std::string bytes = serialize(record);
  auto back = deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(serialize(*back), bytes);
  ASSERT_EQ(back->facts.tests.size(), 1u);
  EXPECT_EQ(back->facts.tests[0].knobs[0].origin, KnobOrigin::declared);
  EXPECT_EQ(back->facts.launches[0].template_arguments, (std::vector<std::string>{"float", "4"}));
  EXPECT_EQ(back->facts.diagnostics[0].severity, Diagnostic::Severity::warning);
  EXPECT_EQ(back->facts.diagnostics[0].message, "note \xff");
  EXPECT_EQ(back->scopes[1].bases, (std::vector<std::string>{"Base"}));
}

TEST(ModuleRecordCache, RejectsCorruptInput) {
  EXPECT_FALSE(deserialize("not json").ok());
  EXPECT_FALSE(deserialize("{}").ok());
  auto record = parse_module("a.py", "def f():\n    g()\n");
  std::string bytes = serialize(record);
  std::string broken = bytes;
  const std::size_t version = broken.find("fastci-python-module/");
  ASSERT_NE(version, std::string::npos);
  broken[version + std::string("fastci-python-module/").size()] = 'x';  // another version, same length
  auto result = deserialize(broken);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("format"), std::string::npos);
  // Every proper prefix is refused, however it ends.
  for (std::size_t size = 0; size < bytes.size(); ++size) EXPECT_FALSE(deserialize(bytes.substr(0, size)).ok()) << size;
  EXPECT_FALSE(deserialize(bytes + "x").ok());
}

LinkedTree linked_fixture() {
  auto source = util::read_file(testing::source_root() / "tests/fixtures/cpp/ext/setup.py");
  auto setup = parse_module("tests/fixtures/cpp/ext/setup.py", source.ok() ? *source : "");
  std::vector<ModuleRecord> records;
  records.push_back(parse_module("pkg/m.py", "def f():\n    g()\n\n\ndef g():\n    return f\n"));
  records.push_back(parse_module("tests/test_m.py", "from pkg.m import f\n\n\ndef test_f():\n    f()\n"));
  LinkedTree tree;
  tree.extensions = setup.extensions;
  records.push_back(std::move(setup));
  tree.facts = link_modules(std::move(records));
  tree.facts.diagnostics.push_back({Diagnostic::Severity::warning, "pkg/link", 0, "a link not followed"});
  return tree;
}

TEST(LinkedTreeCache, RoundTripsALinkedTree) {
  LinkedTree tree = linked_fixture();
  ASSERT_EQ(tree.extensions.size(), 1u);
  std::string bytes = serialize(tree);
  auto back = deserialize_linked(bytes);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(serialize(*back), bytes);
  ASSERT_EQ(back->facts.files.size(), 3u);
  const auto& m = back->facts.files[0];
  ASSERT_FALSE(m.edges.empty());
  bool f_calls_g = false;
  for (const auto& e : m.edges) f_calls_g |= e.from == "py:pkg.m.f" && e.to == "py:pkg.m.g" && e.kind == EdgeKind::call;
  EXPECT_TRUE(f_calls_g);
  EXPECT_EQ(back->facts.files[1].tests.size(), 1u);
  EXPECT_EQ(back->facts.diagnostics.size(), 1u);
  ASSERT_EQ(back->extensions.size(), 1u);
  EXPECT_EQ(back->extensions[0].name, "fixture_ops");
  EXPECT_EQ(back->extensions[0].file, "tests/fixtures/cpp/ext/setup.py");
}

TEST(LinkedTreeCache, RejectsCorruptInput) {
  std::string bytes = serialize(linked_fixture());
  EXPECT_FALSE(deserialize_linked("").ok());
  auto record = deserialize_linked(serialize(parse_module("a.py", "x = 1\n")));
  ASSERT_FALSE(record.ok()) << "a module record is not a linked tree";
  EXPECT_NE(record.error().message.find("format"), std::string::npos);
  for (std::size_t size = 0; size < bytes.size(); size += 7) EXPECT_FALSE(deserialize_linked(bytes.substr(0, size)).ok()) << size;
  EXPECT_FALSE(deserialize_linked(bytes + "x").ok());
}

}  // namespace
}  // namespace fastci::frontend::python
