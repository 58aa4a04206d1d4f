#include <gtest/gtest.h>

#include <map>
#include <set>

#include "planner/change_set.h"

namespace fastci::planner {
namespace {

using frontend::FileFacts;
using frontend::SymbolKind;

frontend::Symbol sym(const std::string& name, SymbolKind kind, int first, int last, std::uint64_t hash) {
  return {"py:" + name, frontend::Language::python, kind, name, "pkg/mod.py", first, last, hash};
}

/// A class symbol with its own code's hash and its annotated fields' order (Symbol::fields_hash).
frontend::Symbol class_sym(const std::string& name, int first, int last, std::uint64_t own, std::uint64_t fields) {
  auto s = sym(name, SymbolKind::class_, first, last, own);
  s.fields_hash = fields;
  return s;
}

FileFacts facts(std::vector<frontend::Symbol> symbols) {
  FileFacts f;
  f.path = "pkg/mod.py";
  f.symbols = std::move(symbols);
  return f;
}

FileDiff modified(std::vector<int> old_lines, std::vector<std::string> old_text, std::vector<int> new_lines,
                  std::vector<std::string> new_text) {
  FileDiff d;
  d.old_path = d.new_path = "pkg/mod.py";
  d.old_lines = std::move(old_lines);
  d.old_text = std::move(old_text);
  d.new_lines = std::move(new_lines);
  d.new_text = std::move(new_text);
  return d;
}

ChangeSet run(const std::vector<FileDiff>& diffs, const FileFacts* base, const FileFacts* head,
              const Config& config = default_config()) {
  auto lookup = [](const FileFacts* f) {
    return [f](const std::string& path) -> const FileFacts* { return f && f->path == path ? f : nullptr; };
  };
  return build_change_set("b", "h", diffs, lookup(base), lookup(head), config);
}

/// Each changed symbol's kind of change, by id.
std::map<std::string, SymbolChange> changes_by_id(const ChangeSet& c) {
  std::map<std::string, SymbolChange> out;
  for (const auto& s : c.symbols) out[s.id] = s.change;
  return out;
}

TEST(ChangeSet, BodyChangeMarksTheInnermostSymbol) {
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), sym("pkg.mod.C", SymbolKind::class_, 3, 12, 2),
                     sym("pkg.mod.C.m", SymbolKind::method, 5, 8, 3)});
  auto head = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), sym("pkg.mod.C", SymbolKind::class_, 3, 12, 9),
                     sym("pkg.mod.C.m", SymbolKind::method, 5, 8, 4)});
  auto c = run({modified({6}, {"        x = 1"}, {6}, {"        x = 2"})}, &base, &head);
  ASSERT_EQ(c.symbols.size(), 1u);
  EXPECT_EQ(c.symbols[0].id, "py:pkg.mod.C.m");
  EXPECT_EQ(c.symbols[0].change, SymbolChange::changed);
  EXPECT_TRUE(c.widenings.empty());
}

TEST(ChangeSet, SameBodyHashIsNotAChange) {
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), sym("pkg.mod.f", SymbolKind::function, 2, 6, 7)});
  auto head = base;
  auto c = run({modified({3}, {"    return x  # old"}, {3}, {"    return x  # new"})}, &base, &head);
  EXPECT_TRUE(c.symbols.empty());
  EXPECT_EQ(c.files[0].note, "formatting, comments or docstrings only");
}

TEST(ChangeSet, ModuleLevelCommentIsNotAChangeButCodeIs) {
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1)});
  auto head = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 2)});
  EXPECT_TRUE(run({modified({}, {}, {1}, {"# a comment"})}, &base, &head).symbols.empty());
  auto c = run({modified({}, {}, {1}, {"LIMIT = 3"})}, &base, &head);
  ASSERT_EQ(c.symbols.size(), 1u);
  EXPECT_EQ(c.symbols[0].kind, SymbolKind::module);
}

TEST(ChangeSet, ModuleLevelCodeThatBindsNoNameWidensToImportersWithItsLine) {
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1)});
  auto head = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 2)});
  auto c = run({modified({}, {}, {7}, {"register(Op)"})}, &base, &head);
  ASSERT_EQ(c.widenings.size(), 1u);
  EXPECT_EQ(c.widenings[0].scope, Widening::Scope::importers);
  EXPECT_EQ(c.widenings[0].detail, "py:pkg.mod");
  EXPECT_NE(c.widenings[0].reason.find("line 7 (`register(Op)`)"), std::string::npos) << c.widenings[0].reason;
  // The same lines with the module's own tokens unchanged (a docstring) are no change at all.
  auto same = run({modified({2}, {"\"\"\"Old.\"\"\""}, {2}, {"\"\"\"New.\"\"\""})}, &base, &base);
  EXPECT_TRUE(same.symbols.empty());
  EXPECT_TRUE(same.widenings.empty());
}

TEST(ChangeSet, PostponedAnnotationsChangeTheModulesDefinitionsNotItsImporters) {
  // DeepSpeed ae1dba5483 adds `from __future__ import annotations` to moe/ep_router.py.
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), sym("pkg.mod.C", SymbolKind::class_, 3, 12, 2),
                     sym("pkg.mod.C.m", SymbolKind::method, 5, 8, 3), sym("pkg.mod.f", SymbolKind::function, 14, 16, 4),
                     sym("pkg.mod.X=", SymbolKind::variable, 18, 18, 5)});
  auto head = base;
  head.symbols[0].body_hash = 9;  // the module's own tokens hold the new line
  auto c = run({modified({}, {}, {1}, {"from __future__ import annotations"})}, &base, &head);
  EXPECT_TRUE(c.widenings.empty());
  std::set<std::string> ids;
  for (const auto& s : c.symbols) ids.insert(s.id);
  EXPECT_EQ(ids, (std::set<std::string>{"py:pkg.mod.C", "py:pkg.mod.C.m", "py:pkg.mod.f"}));
  ASSERT_EQ(c.imports.size(), 1u);  // the importers are collected
  EXPECT_EQ(c.imports[0].line, 1);
  EXPECT_EQ(c.imports[0].module, "py:pkg.mod");
  // Another feature of __future__ changes nothing on Python 3.
  auto other = run({modified({}, {}, {1}, {"from __future__ import print_function"})}, &base, &head);
  EXPECT_TRUE(other.symbols.empty());
  EXPECT_TRUE(other.widenings.empty());
  // With other module-level code beside it, the module's own code changed: its importers.
  auto more = run({modified({}, {}, {1, 2}, {"from __future__ import annotations", "register(C)"})}, &base, &head);
  ASSERT_EQ(more.widenings.size(), 1u);
  EXPECT_EQ(more.widenings[0].scope, Widening::Scope::importers);
}

TEST(ChangeSet, OneStatementBindingSeveralNamesComparesEachName) {
  // from m import (A, B): both variables span the statement; only the one whose hash differs changed.
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), sym("pkg.mod.A=", SymbolKind::variable, 2, 5, 10),
                     sym("pkg.mod.B=", SymbolKind::variable, 2, 5, 20)});
  auto head = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), sym("pkg.mod.A=", SymbolKind::variable, 2, 5, 10),
                     sym("pkg.mod.B=", SymbolKind::variable, 2, 5, 21)});
  auto c = run({modified({4}, {"    B,"}, {4}, {"    B as B,"})}, &base, &head);
  ASSERT_EQ(c.symbols.size(), 1u);
  EXPECT_EQ(c.symbols[0].id, "py:pkg.mod.B=");
  EXPECT_TRUE(c.widenings.empty());
}

TEST(ChangeSet, RemovingADuplicateBindingIsNoChange) {
  // `import m as x` twice, the second removed: x is bound to the same thing as before.
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), sym("pkg.mod.x=", SymbolKind::variable, 2, 2, 5),
                     sym("pkg.mod.x=#2", SymbolKind::variable, 9, 9, 5)});
  base.symbols[1].qualified_name = base.symbols[2].qualified_name = "pkg.mod.x";
  auto head = facts({sym("pkg.mod", SymbolKind::module, 1, 19, 1), sym("pkg.mod.x=", SymbolKind::variable, 2, 2, 5)});
  head.symbols[1].qualified_name = "pkg.mod.x";
  auto c = run({modified({9}, {"import m as x"}, {}, {})}, &base, &head);
  EXPECT_TRUE(c.symbols.empty());
  // Bound to something else: a change.
  head.symbols[1].body_hash = 6;
  EXPECT_FALSE(run({modified({2, 9}, {"import m as x", "import m as x"}, {2}, {"import n as x"})}, &base, &head).symbols.empty());
}

TEST(ChangeSet, ClassFieldChangeComparesTheClassToo) {
  // A field default: only the variable. A field added: the class's field order (its generated __init__) changed.
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), class_sym("pkg.mod.C", 3, 10, 5, 50),
                     sym("pkg.mod.C.x=", SymbolKind::variable, 4, 4, 6)});
  auto head_default = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), class_sym("pkg.mod.C", 3, 10, 5, 50),
                             sym("pkg.mod.C.x=", SymbolKind::variable, 4, 4, 7)});
  auto c = run({modified({4}, {"    x: int = 1"}, {4}, {"    x: int = 2"})}, &base, &head_default);
  ASSERT_EQ(c.symbols.size(), 1u);
  EXPECT_EQ(c.symbols[0].id, "py:pkg.mod.C.x=");
  auto head_added = facts({sym("pkg.mod", SymbolKind::module, 1, 21, 1), class_sym("pkg.mod.C", 3, 11, 5, 51),
                           sym("pkg.mod.C.w=", SymbolKind::variable, 4, 4, 9),
                           sym("pkg.mod.C.x=", SymbolKind::variable, 5, 5, 6)});
  auto added = run({modified({}, {}, {4}, {"    w: int = 0"})}, &base, &head_added);
  std::map<std::string, SymbolChange> got;
  for (const auto& s : added.symbols) got[s.id] = s.change;
  // Added before x: x's place in the generated __init__ changed, so every field counts, the new one as added.
  EXPECT_EQ(got.size(), 3u);
  EXPECT_EQ(got["py:pkg.mod.C.w="], SymbolChange::added);
  EXPECT_EQ(got["py:pkg.mod.C"], SymbolChange::changed);
  EXPECT_EQ(got["py:pkg.mod.C.x="], SymbolChange::changed);
}

TEST(ChangeSet, AFieldAddedAfterTheOthersLeavesThemAlone) {
  // @dataclass class C: x: int = 1 / y: int = 2, and z appended (DeepSpeed 711bd11ecc's IPGBucket.copy_streams):
  // x and y keep their place in the generated __init__ and their meaning; the class (its constructor) and z count.
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), class_sym("pkg.mod.C", 3, 10, 5, 50),
                     sym("pkg.mod.C.x=", SymbolKind::variable, 5, 5, 6), sym("pkg.mod.C.y=", SymbolKind::variable, 6, 6, 7)});
  auto head = facts({sym("pkg.mod", SymbolKind::module, 1, 21, 1), class_sym("pkg.mod.C", 3, 11, 5, 51),
                     sym("pkg.mod.C.x=", SymbolKind::variable, 5, 5, 6), sym("pkg.mod.C.y=", SymbolKind::variable, 6, 6, 7),
                     sym("pkg.mod.C.z=", SymbolKind::variable, 7, 7, 9)});
  auto appended = run({modified({}, {}, {7}, {"    z: set = field(default_factory=set)"})}, &base, &head);
  auto got = changes_by_id(appended);
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(got["py:pkg.mod.C"], SymbolChange::changed);
  EXPECT_EQ(got["py:pkg.mod.C.z="], SymbolChange::added);

  // The same with a code line of the class's own changed too (its decorator: its own hash): every field counts.
  auto frozen = head;
  frozen.symbols[1].body_hash = 8;
  auto decorated = run({modified({3}, {"@dataclass"}, {3, 7}, {"@dataclass(frozen=True)", "    z: set = field(default_factory=set)"})},
                       &base, &frozen);
  got = changes_by_id(decorated);
  EXPECT_EQ(got.size(), 4u);
  EXPECT_EQ(got["py:pkg.mod.C.x="], SymbolChange::changed);
  EXPECT_EQ(got["py:pkg.mod.C.y="], SymbolChange::changed);

  // A comment line added in the class body is no code of its own: still only the class and z.
  auto commented = run({modified({}, {}, {7, 8}, {"    z: set = field(default_factory=set)", "    # producers"})}, &base, &head);
  EXPECT_EQ(commented.symbols.size(), 2u);

  // Inserted between x and y: y's place changed (a positional C(1, 2) now sets z), x's did not.
  auto between = facts({sym("pkg.mod", SymbolKind::module, 1, 21, 1), class_sym("pkg.mod.C", 3, 11, 5, 52),
                        sym("pkg.mod.C.x=", SymbolKind::variable, 5, 5, 6), sym("pkg.mod.C.z=", SymbolKind::variable, 6, 6, 9),
                        sym("pkg.mod.C.y=", SymbolKind::variable, 7, 7, 7)});
  auto inserted = run({modified({}, {}, {6}, {"    z: set = field(default_factory=set)"})}, &base, &between);
  got = changes_by_id(inserted);
  EXPECT_EQ(got.size(), 3u);
  EXPECT_EQ(got["py:pkg.mod.C.y="], SymbolChange::changed);
  EXPECT_FALSE(got.count("py:pkg.mod.C.x="));
}

TEST(ChangeSet, AFieldAddedWithItsDocstringLeavesTheFieldsBeforeIt) {
  // Megatron-LM d98e8a64dd: TransformerConfig gains `batch_invariant_backend: Literal[...] = "te_native"`
  // and its attribute docstring between two fields. The docstring's lines belong to the class, not to a
  // field, but they are no code of the class's own (its own hash leaves docstrings out): the fields
  // before the new one keep their place and meaning; the class and the fields after it count.
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 30, 1), class_sym("pkg.mod.C", 3, 20, 5, 50),
                     sym("pkg.mod.C.x=", SymbolKind::variable, 5, 5, 6), sym("pkg.mod.C.y=", SymbolKind::variable, 7, 7, 7),
                     sym("pkg.mod.C.w=", SymbolKind::variable, 9, 9, 8)});
  auto head = facts({sym("pkg.mod", SymbolKind::module, 1, 34, 1), class_sym("pkg.mod.C", 3, 24, 5, 51),
                     sym("pkg.mod.C.x=", SymbolKind::variable, 5, 5, 6), sym("pkg.mod.C.y=", SymbolKind::variable, 7, 7, 7),
                     sym("pkg.mod.C.z=", SymbolKind::variable, 9, 9, 9), sym("pkg.mod.C.w=", SymbolKind::variable, 13, 13, 8)});
  auto got = changes_by_id(run({modified({}, {}, {9, 10, 11, 12},
                                         {"    z: str = \"te_native\"", "    \"\"\"Which backend to use when", "    enabled.\"\"\"", ""})},
                               &base, &head));
  EXPECT_EQ(got.size(), 3u);
  EXPECT_EQ(got["py:pkg.mod.C"], SymbolChange::changed);
  EXPECT_EQ(got["py:pkg.mod.C.z="], SymbolChange::added);
  EXPECT_EQ(got["py:pkg.mod.C.w="], SymbolChange::changed);
  EXPECT_FALSE(got.count("py:pkg.mod.C.x=") || got.count("py:pkg.mod.C.y="));

  // A field's docstring edited alone: the class's own code and fields are the same, nothing changed
  // but the class's docstrings (data only where code reads them).
  auto edited = head;
  edited.symbols[1].doc_hash = 77;
  auto docs = run({modified({11}, {"    enabled.\"\"\""}, {11}, {"    enabled (default).\"\"\""})}, &head, &edited);
  EXPECT_TRUE(docs.symbols.empty());
  ASSERT_EQ(docs.docstrings.size(), 1u);
  EXPECT_EQ(docs.docstrings[0].id, "py:pkg.mod.C");
}

TEST(ChangeSet, AddedDeletedAndRenamedSymbols) {
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), sym("pkg.mod.old", SymbolKind::function, 2, 4, 55),
                     sym("pkg.mod.gone", SymbolKind::function, 6, 8, 66)});
  auto head = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1), sym("pkg.mod.new", SymbolKind::function, 2, 4, 55),
                     sym("pkg.mod.fresh", SymbolKind::function, 10, 12, 77)});
  auto c = run({modified({2, 6, 7, 8}, {"def old():", "def gone():", "    pass", ""}, {2, 10},
                         {"def new():", "def fresh():"})},
               &base, &head);
  std::map<std::string, SymbolChange> got;
  for (const auto& s : c.symbols) got[s.id] = s.change;
  EXPECT_EQ(got["py:pkg.mod.new"], SymbolChange::renamed);
  EXPECT_EQ(got["py:pkg.mod.fresh"], SymbolChange::added);
  EXPECT_EQ(got["py:pkg.mod.gone"], SymbolChange::deleted);
  EXPECT_EQ(got["py:pkg.mod.old"], SymbolChange::deleted);
}

TEST(ChangeSet, UnparsedHeadWidensToImporters) {
  auto base = facts({sym("pkg.mod", SymbolKind::module, 1, 20, 1)});
  auto head = base;
  head.parsed = false;
  head.diagnostics.push_back({frontend::Diagnostic::Severity::error, "pkg/mod.py", 4, "syntax error: expected ':'"});
  auto c = run({modified({}, {}, {4}, {"def f(x)"})}, &base, &head);
  ASSERT_EQ(c.widenings.size(), 1u);
  EXPECT_EQ(c.widenings[0].scope, Widening::Scope::importers);
  EXPECT_EQ(c.widenings[0].detail, "py:pkg.mod");
  EXPECT_NE(c.widenings[0].reason.find("expected ':'"), std::string::npos);
}

TEST(ChangeSet, NonCodeFilesFollowTheRules) {
  Config config = default_config();
  config.rules.push_back({"kernels", {"csrc/**"}, {"tests/ops/**"}});
  auto file = [](const std::string& path) {
    FileDiff d;
    d.old_path = d.new_path = path;
    d.new_lines = {1};
    d.new_text = {"x"};
    return d;
  };
  auto c = run({file("README.md"), file("requirements.txt"), file("tests/conftest.py"), file("data/blob.bin"),
                file("csrc/kernel.cu")},
               nullptr, nullptr, config);
  ASSERT_EQ(c.files.size(), 5u);
  EXPECT_EQ(c.files[0].kind, FileKind::ignored);
  EXPECT_EQ(c.files[1].kind, FileKind::select_all);
  std::vector<std::pair<Widening::Scope, std::string>> got;
  for (const auto& w : c.widenings) got.push_back({w.scope, w.file});
  std::vector<std::pair<Widening::Scope, std::string>> want = {
      {Widening::Scope::everything, "requirements.txt"},
      {Widening::Scope::folder, "tests/conftest.py"},
      {Widening::Scope::everything, "data/blob.bin"},
      {Widening::Scope::everything, "csrc/kernel.cu"},
      {Widening::Scope::rule, "csrc/kernel.cu"}};
  EXPECT_EQ(got, want);

  config.unknown = UnknownFilePolicy::ignore;
  auto quiet = run({file("data/blob.bin")}, nullptr, nullptr, config);
  EXPECT_TRUE(quiet.widenings.empty());
}

}  // namespace
}  // namespace fastci::planner
