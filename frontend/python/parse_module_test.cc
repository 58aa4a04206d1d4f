#include "frontend/python/parse_module.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

const Symbol* find_symbol(const ModuleRecord& record, const std::string& id) {
  for (const auto& s : record.facts.symbols)
    if (s.id == id) return &s;
  return nullptr;
}

ModuleRecord parse_fixture(const std::string& relative) {
  auto source = util::read_file(testing::source_root() / relative);
  EXPECT_TRUE(source.ok()) << relative;
  return parse_module(relative, source.ok() ? *source : "");
}

bool has_reference(const ModuleRecord& record, const std::string& scope, const std::string& text) {
  for (const auto& r : record.references)
    if (record.scopes[r.scope].qualified_name == scope && r.text == text) return true;
  return false;
}

TEST(ModuleName, FollowsThePath) {
  EXPECT_EQ(module_name_for_path("a/b/c.py"), "a.b.c");
  EXPECT_EQ(module_name_for_path("a/b/__init__.py"), "a.b");
  EXPECT_EQ(module_name_for_path("setup.py"), "setup");
}

TEST(ParseModule, ExtractsDefinitionsWithIdsAndLines) {
  auto record = parse_fixture("tests/fixtures/python/linking/pkg/core.py");
  EXPECT_TRUE(record.facts.parsed);
  EXPECT_EQ(record.module_name, "tests.fixtures.python.linking.pkg.core");
  const std::string m = "py:tests.fixtures.python.linking.pkg.core";
  ASSERT_NE(find_symbol(record, m), nullptr);
  EXPECT_EQ(find_symbol(record, m)->kind, SymbolKind::module);
  const Symbol* engine = find_symbol(record, m + ".Engine");
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->kind, SymbolKind::class_);
  const Symbol* step = find_symbol(record, m + ".Engine.step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->kind, SymbolKind::method);
  EXPECT_EQ(step->first_line, 41);  // the decorator line starts the definition
  EXPECT_EQ(step->last_line, 45);
  ASSERT_NE(find_symbol(record, m + ".traced.wrapper"), nullptr);
  EXPECT_EQ(find_symbol(record, m + ".traced.wrapper")->kind, SymbolKind::function);
  ASSERT_NE(find_symbol(record, m + ".Engine.schedule.inner"), nullptr);
  EXPECT_EQ(record.facts.symbols.size(), record.scopes.size() + record.variables.size());
}

TEST(ParseModule, RecordsRawReferences) {
  auto record = parse_fixture("tests/fixtures/python/linking/pkg/core.py");
  const std::string m = "tests.fixtures.python.linking.pkg.core";
  EXPECT_TRUE(has_reference(record, m + ".Engine.__init__", "super().__init__"));
  EXPECT_TRUE(has_reference(record, m + ".Engine.__init__", "Helper"));
  EXPECT_TRUE(has_reference(record, m + ".Engine.step", "self.helper.work"));
  EXPECT_TRUE(has_reference(record, m + ".Engine.step", "np.zeros"));
  EXPECT_TRUE(has_reference(record, m + ".Base.run", "self.step"));
  // A lambda is a scope of its own, named as PyCG names it; its calls are its own.
  EXPECT_TRUE(has_reference(record, m + ".Engine.schedule.<lambda1>", "inner"));
  EXPECT_FALSE(has_reference(record, m + ".Engine.schedule", "inner"));
  // A decorator is called by the scope that defines the decorated function.
  bool decorator = false;
  for (const auto& r : record.references)
    if (r.text == "traced" && r.kind == EdgeKind::decorates &&
        record.scopes[r.decorated].qualified_name == m + ".Engine.step")
      decorator = true;
  EXPECT_TRUE(decorator);
  // key=helper_fn passes a callback.
  bool callback = false;
  for (const auto& r : record.references)
    if (r.text == "helper_fn" && r.kind == EdgeKind::reference) callback = true;
  EXPECT_TRUE(callback);
}

TEST(ParseModule, RecordsImportsAndBindings) {
  auto record = parse_fixture("tests/fixtures/python/linking/pkg/sub/mod.py");
  const auto& module = record.scopes[0];
  auto find = [&](const std::string& name) -> const NameBinding* {
    for (const auto& b : module.bindings)
      if (b.name == name) return &b;
    return nullptr;
  };
  ASSERT_NE(find("core"), nullptr);
  EXPECT_EQ(find("core")->kind, NameBinding::Kind::from_import);
  EXPECT_EQ(find("core")->target, "tests.fixtures.python.linking.pkg");
  ASSERT_NE(find("H"), nullptr);
  EXPECT_EQ(find("H")->target, "tests.fixtures.python.linking.pkg.util");
  EXPECT_EQ(find("H")->member, "Helper");
  ASSERT_NE(find("leaf"), nullptr);
  EXPECT_EQ(find("leaf")->target, "tests.fixtures.python.linking.pkg.sub");
  auto& imports = record.facts.imported_modules;
  EXPECT_NE(std::find(imports.begin(), imports.end(), "tests.fixtures.python.linking.pkg.util"), imports.end());

  auto core = parse_fixture("tests/fixtures/python/linking/pkg/core.py");
  bool aliased = false, instance = false;
  for (const auto& b : core.scopes[0].bindings)
    if (b.name == "np" && b.kind == NameBinding::Kind::module_import && b.target == "numpy") aliased = true;
  for (const auto& s : core.scopes)
    for (const auto& a : s.instance_attributes)
      if (s.name == "Engine" && a.name == "helper" && a.kind == NameBinding::Kind::call_result && a.target == "Helper")
        instance = true;
  EXPECT_TRUE(aliased);
  EXPECT_TRUE(instance);
}

TEST(BodyHash, IgnoresFormattingCommentsAndDocstrings) {
  auto a = parse_module("m.py", "def f(x):\n    return x + 1\n");
  auto b = parse_module("m.py",
                        "def f( x ):\n    \"\"\"Adds one.\"\"\"\n    # comment\n\n    return (x\n            + 1)  # tail\n");
  auto c = parse_module("m.py", "def f(x):\n    return x + 2\n");
  auto d = parse_module("m.py", "def f(x):\n    return 'x + 1'\n");
  ASSERT_EQ(a.facts.symbols.size(), 2u);
  // Parentheses are tokens, so only whitespace, comments and the docstring differ in a/b.
  auto e = parse_module("m.py", "def f( x ):\n    \"\"\"Doc.\"\"\"\n    # c\n    return x  +  1\n");
  EXPECT_EQ(a.facts.symbols[1].body_hash, e.facts.symbols[1].body_hash);
  EXPECT_NE(a.facts.symbols[1].body_hash, b.facts.symbols[1].body_hash);
  EXPECT_NE(a.facts.symbols[1].body_hash, c.facts.symbols[1].body_hash);
  EXPECT_NE(a.facts.symbols[1].body_hash, d.facts.symbols[1].body_hash);
  auto g = parse_module("m.py", "\"\"\"Module doc.\"\"\"\n\n\ndef f(x):\n    return x + 1\n");
  EXPECT_EQ(a.facts.symbols[1].body_hash, g.facts.symbols[1].body_hash);
}

TEST(ParseModule, SyntaxErrorsKeepWhatIsSafe) {
  auto record = parse_fixture("tests/fixtures/python/bad/broken.py");
  EXPECT_FALSE(record.facts.parsed);
  ASSERT_FALSE(record.facts.diagnostics.empty());
  EXPECT_EQ(record.facts.diagnostics[0].file, "tests/fixtures/python/bad/broken.py");
  EXPECT_EQ(record.facts.diagnostics[0].line, 5);
  EXPECT_NE(record.facts.diagnostics[0].message.find("syntax error"), std::string::npos);
  EXPECT_NE(find_symbol(record, "py:tests.fixtures.python.bad.broken.good"), nullptr);
  EXPECT_NE(find_symbol(record, "py:tests.fixtures.python.bad.broken.AlsoGood.method"), nullptr);
}

TEST(ParseModule, MissingTokenSaysWhatWasExpected) {
  auto record = parse_module("x.py", "def f(:\n    pass\nprint((1, 2)\n");
  EXPECT_FALSE(record.facts.parsed);
  ASSERT_FALSE(record.facts.diagnostics.empty());
  bool expected = false;
  for (const auto& d : record.facts.diagnostics) expected |= d.message.find("expected") != std::string::npos;
  EXPECT_TRUE(expected);
}

TEST(ParseModule, BinaryAndBrokenBytesNeverCrash) {
  std::string binary("\x7f" "ELF\0\0\x01garbage", 13);
  auto b = parse_module("lib/blob.py", binary);
  EXPECT_FALSE(b.facts.parsed);
  ASSERT_EQ(b.facts.diagnostics.size(), 1u);
  EXPECT_NE(b.facts.diagnostics[0].message.find("NUL byte"), std::string::npos);
  EXPECT_EQ(b.facts.symbols.size(), 1u);

  auto latin1 = parse_module("l.py", "x = 1\ndef f():\n    return '\xe9t\xe9'\n");
  ASSERT_FALSE(latin1.facts.diagnostics.empty());
  EXPECT_EQ(latin1.facts.diagnostics[0].line, 3);
  EXPECT_NE(latin1.facts.diagnostics[0].message.find("UTF-8"), std::string::npos);
  EXPECT_NE(find_symbol(latin1, "py:l.f"), nullptr);
  // Python rejects non-UTF-8 source without a coding declaration: not parsed, an error.
  EXPECT_FALSE(latin1.facts.parsed);
  EXPECT_EQ(latin1.facts.diagnostics[0].severity, Diagnostic::Severity::error);

  auto declared = parse_module("d.py", "#!/usr/bin/env python\n# -*- coding: latin-1 -*-\nS = '\xe9'\n");
  EXPECT_TRUE(declared.facts.parsed);
  ASSERT_EQ(declared.facts.diagnostics.size(), 1u);
  EXPECT_EQ(declared.facts.diagnostics[0].severity, Diagnostic::Severity::warning);
  EXPECT_NE(declared.facts.diagnostics[0].message.find("latin-1"), std::string::npos);

  auto empty = parse_module("e.py", "");
  EXPECT_TRUE(empty.facts.parsed);
  EXPECT_EQ(empty.facts.symbols.size(), 1u);
}

TEST(ParseModule, HugeGeneratedFileAndDeepNesting) {
  std::string big;
  big.reserve(10 << 20);
  for (int i = 0; big.size() < (10u << 20); ++i)
    big += "def generated_" + std::to_string(i) + "(a, b):\n    return helper(a) + b * " + std::to_string(i) + "\n\n";
  auto record = parse_module("gen/big.py", big);
  EXPECT_TRUE(record.facts.parsed);
  EXPECT_GT(record.facts.symbols.size(), 100000u);

  std::string deep = "x = " + std::string(3000, '(') + "1" + std::string(3000, ')') + "\n";
  std::string chain = "y = a";
  for (int i = 0; i < 20000; ++i) chain += " + f(a)";
  chain += "\n";
  auto nested = parse_module("gen/deep.py", deep + chain);
  EXPECT_EQ(nested.facts.symbols.size(), 3u);  // the module and its variables x and y
}

TEST(ParseModule, RepeatedNamesGetDistinctIds) {
  auto record = parse_module("p.py",
                             "class C:\n    @property\n    def x(self):\n        return 1\n\n"
                             "    @x.setter\n    def x(self, v):\n        pass\n");
  EXPECT_NE(find_symbol(record, "py:p.C.x"), nullptr);
  EXPECT_NE(find_symbol(record, "py:p.C.x#2"), nullptr);
}

}  // namespace
}  // namespace fastci::frontend::python
