// Module- and class-level names as variable symbols, and reads of them as facts.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

const Symbol* find_symbol(const ModuleRecord& record, const std::string& id) {
  for (const auto& s : record.facts.symbols)
    if (s.id == id) return &s;
  return nullptr;
}

bool has_read(const ModuleRecord& record, const std::string& text, int owner_or_any = -2) {
  for (const auto& r : record.references)
    if (r.kind == EdgeKind::read && r.text == text && (owner_or_any == -2 || r.owner == owner_or_any)) return true;
  return false;
}

TEST(ModuleVariables, AssignmentsImportsAndFieldsAreVariablesWithTheirStatementLines) {
  auto record = parse_module("pkg/m.py",
                             "import os, sys\n"                       // 1
                             "from pkg.consts import (\n"             // 2
                             "    LIMIT,\n"                           // 3
                             "    SCALE as S,\n"                      // 4
                             ")\n"                                    // 5
                             "X: int = LIMIT + 1\n"                   // 6
                             "X += 2\n"                               // 7
                             "a, b = 1, 2\n"                          // 8
                             "\n"
                             "class C:\n"                             // 10
                             "    steps: int = 10\n"                  // 11
                             "    name = 'c'\n"                       // 12
                             "    def f(self):\n"                     // 13
                             "        y = 1\n"                        // 14
                             "        return self.steps + y\n");      // 15
  for (const char* id : {"py:pkg.m.os=", "py:pkg.m.sys=", "py:pkg.m.LIMIT=", "py:pkg.m.S=", "py:pkg.m.X=",
                         "py:pkg.m.X=#2", "py:pkg.m.a=", "py:pkg.m.b=", "py:pkg.m.C.steps=", "py:pkg.m.C.name="})
    ASSERT_NE(find_symbol(record, id), nullptr) << id;
  EXPECT_EQ(find_symbol(record, "py:pkg.m.LIMIT=")->first_line, 2);
  EXPECT_EQ(find_symbol(record, "py:pkg.m.LIMIT=")->last_line, 5);
  EXPECT_EQ(find_symbol(record, "py:pkg.m.LIMIT=")->kind, SymbolKind::variable);
  EXPECT_EQ(find_symbol(record, "py:pkg.m.LIMIT=")->qualified_name, "pkg.m.LIMIT");
  // Names of one import statement hash apart, so a change to one of them is a change to it alone.
  EXPECT_NE(find_symbol(record, "py:pkg.m.LIMIT=")->body_hash, find_symbol(record, "py:pkg.m.S=")->body_hash);
  // Locals of functions are not variables.
  EXPECT_EQ(find_symbol(record, "py:pkg.m.C.f.y="), nullptr);
  // The symbols after the scopes' are the variables, in order.
  ASSERT_EQ(record.facts.symbols.size(), record.scopes.size() + record.variables.size());
  EXPECT_EQ(record.variables[2].imported_module, "pkg.consts");
  EXPECT_EQ(record.variables[2].imported_member, "LIMIT");
  // Reads in a binding statement feed that statement's variable; reads in methods are the method's.
  int x = -1;
  for (std::size_t v = 0; v < record.variables.size(); ++v)
    if (record.variables[v].name == "X" && x < 0) x = static_cast<int>(v);
  EXPECT_TRUE(has_read(record, "LIMIT", x));
  EXPECT_TRUE(has_read(record, "self.steps"));
}

TEST(ModuleVariables, OwnHashesIgnoreDocstringsDefinitionsAndVariables) {
  auto symbol_of = [](const std::string& source, const std::string& id) {
    auto record = parse_module("pkg/m.py", source);
    const Symbol* s = find_symbol(record, id);
    return s ? *s : Symbol{};
  };
  auto hash_of = [&](const std::string& source, const std::string& id) { return symbol_of(source, id).body_hash; };
  auto fields_of = [&](const std::string& source, const std::string& id) { return symbol_of(source, id).fields_hash; };
  std::string base = "\"\"\"Doc.\"\"\"\nLIMIT = 4\n\nclass C:\n    \"\"\"Doc.\"\"\"\n    x: int = 1\n    def f(self):\n        return 1\n";
  std::string docs = "\"\"\"Other doc.\"\"\"\nLIMIT = 4\n\nclass C:\n    \"\"\"Another.\"\"\"\n    x: int = 1\n    def f(self):\n        return 1\n";
  std::string value = "\"\"\"Doc.\"\"\"\nLIMIT = 5\n\nclass C:\n    \"\"\"Doc.\"\"\"\n    x: int = 2\n    def f(self):\n        return 2\n";
  std::string field = "\"\"\"Doc.\"\"\"\nLIMIT = 4\n\nclass C:\n    \"\"\"Doc.\"\"\"\n    w: int = 0\n    x: int = 1\n    def f(self):\n        return 1\n";
  std::string effect = "\"\"\"Doc.\"\"\"\nLIMIT = 4\nprint(LIMIT)\n\nclass C:\n    \"\"\"Doc.\"\"\"\n    x: int = 1\n    def f(self):\n        return 1\n";
  EXPECT_EQ(hash_of(base, "py:pkg.m"), hash_of(docs, "py:pkg.m"));
  EXPECT_EQ(hash_of(base, "py:pkg.m.C"), hash_of(docs, "py:pkg.m.C"));
  EXPECT_EQ(hash_of(base, "py:pkg.m"), hash_of(value, "py:pkg.m"));
  EXPECT_EQ(hash_of(base, "py:pkg.m.C"), hash_of(value, "py:pkg.m.C"));
  EXPECT_NE(hash_of(base, "py:pkg.m.LIMIT="), hash_of(value, "py:pkg.m.LIMIT="));
  // A new annotated field changes the class's fields (its generated __init__), not its own code; a
  // side effect the module.
  EXPECT_EQ(hash_of(base, "py:pkg.m.C"), hash_of(field, "py:pkg.m.C"));
  EXPECT_NE(fields_of(base, "py:pkg.m.C"), fields_of(field, "py:pkg.m.C"));
  EXPECT_EQ(fields_of(base, "py:pkg.m.C"), fields_of(value, "py:pkg.m.C"));
  EXPECT_NE(hash_of(base, "py:pkg.m"), hash_of(effect, "py:pkg.m"));
  // With its attribute docstring (Megatron-LM's config fields): still the fields only; the docstring
  // is the class's docstrings'. A class attribute without annotation is no __init__ parameter.
  std::string documented = "\"\"\"Doc.\"\"\"\nLIMIT = 4\n\nclass C:\n    \"\"\"Doc.\"\"\"\n    x: int = 1\n    w: int = 0\n"
                           "    \"\"\"What w is.\"\"\"\n    def f(self):\n        return 1\n";
  std::string attribute = "\"\"\"Doc.\"\"\"\nLIMIT = 4\n\nclass C:\n    \"\"\"Doc.\"\"\"\n    K = 3\n    x: int = 1\n    def f(self):\n        return 1\n";
  EXPECT_EQ(hash_of(base, "py:pkg.m.C"), hash_of(documented, "py:pkg.m.C"));
  EXPECT_NE(fields_of(base, "py:pkg.m.C"), fields_of(documented, "py:pkg.m.C"));
  EXPECT_EQ(hash_of(base, "py:pkg.m.C"), hash_of(attribute, "py:pkg.m.C"));
  EXPECT_EQ(fields_of(base, "py:pkg.m.C"), fields_of(attribute, "py:pkg.m.C"));
  // Own code of the class (a base, a class-level call) changes its own hash.
  std::string based = "\"\"\"Doc.\"\"\"\nLIMIT = 4\n\nclass C(B):\n    \"\"\"Doc.\"\"\"\n    x: int = 1\n    def f(self):\n        return 1\n";
  EXPECT_NE(hash_of(base, "py:pkg.m.C"), hash_of(based, "py:pkg.m.C"));
}

TEST(ModuleVariables, ScriptMainBlockIsNotImportTimeCode) {
  auto record = parse_module("train.py",
                             "def forward_step():\n"
                             "    return 1\n"
                             "if __name__ == '__main__':\n"
                             "    pretrain(forward_step)\n");
  for (const auto& r : record.references)
    EXPECT_NE(record.scopes[r.scope].kind == Scope::Kind::module && r.text == "pretrain", true) << r.text;
}

TEST(ModuleVariables, DefinitionHeadersReadForTheDefinition) {
  auto record = parse_module("pkg/m.py",
                             "LIMIT = 4\n"
                             "def f(x=LIMIT):\n"
                             "    return x\n"
                             "class K(Base):\n"
                             "    pass\n");
  bool default_read = false, base_read = false;
  for (const auto& r : record.references) {
    if (r.kind != EdgeKind::read) continue;
    if (r.text == "LIMIT" && r.decorated >= 0) default_read = record.scopes[r.decorated].qualified_name == "pkg.m.f";
    if (r.text == "Base" && r.decorated >= 0) base_read = record.scopes[r.decorated].qualified_name == "pkg.m.K";
  }
  EXPECT_TRUE(default_read);
  EXPECT_TRUE(base_read);
}

TEST(ModuleVariables, ReadsLinkToVariablesAcrossModulesClassesAndNameMatches) {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("pkg/__init__.py", ""));
  modules.push_back(parse_module("pkg/consts.py", "LIMIT = 4\nOTHER = 1\n"));
  modules.push_back(parse_module("pkg/cfg.py",
                                 "class Cfg:\n"
                                 "    steps: int = 10\n"
                                 "    def twice(self):\n"
                                 "        return 2 * self.steps\n"));
  modules.push_back(parse_module("pkg/use.py",
                                 "import pkg.consts\n"
                                 "from pkg.consts import LIMIT\n"
                                 "from pkg.cfg import Cfg\n"
                                 "def clip(x):\n"
                                 "    return min(x, LIMIT)\n"
                                 "def other():\n"
                                 "    return pkg.consts.OTHER\n"
                                 "def local(LIMIT):\n"
                                 "    return LIMIT\n"
                                 "def steps_of(cfg):\n"
                                 "    return cfg.steps\n"
                                 "def typed():\n"
                                 "    return Cfg().steps\n"));
  modules.push_back(parse_module("pkg/star.py",
                                 "from .consts import *\n"
                                 "def g():\n"
                                 "    return LIMIT\n"));
  auto facts = link_modules(std::move(modules));
  EXPECT_TRUE(has_edge(facts, "py:pkg.use.clip", "py:pkg.use.LIMIT=", EdgeKind::read));
  EXPECT_TRUE(has_edge(facts, "py:pkg.use.LIMIT=", "py:pkg.consts.LIMIT=", EdgeKind::read));
  EXPECT_TRUE(has_edge(facts, "py:pkg.use.other", "py:pkg.consts.OTHER=", EdgeKind::read));
  // A parameter of the same name hides the module's variable.
  EXPECT_FALSE(has_edge(facts, "py:pkg.use.local", "py:pkg.use.LIMIT=", EdgeKind::read));
  EXPECT_TRUE(has_edge(facts, "py:pkg.cfg.Cfg.twice", "py:pkg.cfg.Cfg.steps=", EdgeKind::read));
  EXPECT_TRUE(has_edge(facts, "py:pkg.use.typed", "py:pkg.cfg.Cfg.steps=", EdgeKind::read));
  // cfg's type is unknown: the read may be of any class attribute named steps.
  EXPECT_TRUE(has_edge(facts, "py:pkg.use.steps_of", "?.steps", EdgeKind::name_match));
  EXPECT_TRUE(has_edge(facts, "?.steps", "py:pkg.cfg.Cfg.steps=", EdgeKind::name_match));
  EXPECT_FALSE(has_edge(facts, "py:pkg.use.typed", "?.steps", EdgeKind::name_match));
  // Names a star import brings are read from the module that binds them.
  EXPECT_TRUE(has_edge(facts, "py:pkg.star.g", "py:pkg.consts.LIMIT=", EdgeKind::read));
}

}  // namespace
}  // namespace fastci::frontend::python
