// An edit that moves lines and changes nothing the linker reads: the neighbour's linked tree with
// the lines moved is byte for byte what linking the edited tree gives (the same tests, knobs and edges).
#include "frontend/python/moved_lines.h"

#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"
#include "util/file.h"

namespace fastci::frontend::python {
namespace {

using testing::parse_folder;
using testing::source_root;

/// The linking fixture, with `path`'s source replaced by `edit(source)`.
template <class Edit>
std::vector<ModuleRecord> fixture_with(const std::string& path, Edit&& edit) {
  const auto root = source_root() / "tests/fixtures/python/linking";
  auto records = parse_folder(root, root);
  for (auto& record : records)
    if (record.facts.path == path) {
      auto source = util::read_file(root / path);
      EXPECT_TRUE(source.ok());
      record = parse_module(path, edit(*source));
    }
  return records;
}

std::string linked(std::vector<ModuleRecord> records) { return serialize(LinkedTree{link_modules(std::move(records)), {}}); }

const ModuleRecord& record_of(const std::vector<ModuleRecord>& records, const std::string& path) {
  for (const auto& r : records)
    if (r.facts.path == path) return r;
  throw std::runtime_error("no " + path);
}

/// Links `before`, moves the lines of file `index` to `after`'s and expects what linking `after` gives.
LinkedTree expect_moved_as_linked(const std::vector<ModuleRecord>& before, const std::vector<ModuleRecord>& after,
                                  std::size_t index) {
  LinkedTree tree{link_modules(before), {}};
  auto lines = moved_lines(before[index], after[index]);
  EXPECT_TRUE(lines.has_value());
  if (!lines) return tree;
  EXPECT_EQ(lines->at(0), 0);
  EXPECT_TRUE(move_linked_lines(tree, after[index], *lines));
  EXPECT_EQ(serialize(tree), linked(after));
  return tree;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(MovedLines, MovedLinesOfALinkedTreeAreWhatLinkingTheEditGives) {
  auto before = fixture_with("pkg/core.py", [](std::string s) { return s; });
  // Lines added above everything and in the middle of a function, an operator changed.
  auto after = fixture_with("pkg/core.py", [](std::string s) {
    s = "# a comment\n\n\n" + s;
    s = replaced(s, "    def run(self):\n", "    def run(self):\n        # why\n\n");
    return replaced(s, "return self.engine.step() + self.fallback.work()", "return self.engine.step() - self.fallback.work()");
  });
  auto lines = moved_lines(record_of(before, "pkg/core.py"), record_of(after, "pkg/core.py"));
  ASSERT_TRUE(lines.has_value());
  EXPECT_EQ(lines->at(0), 0);
  LinkedTree tree{link_modules(before), {}};
  ASSERT_TRUE(move_linked_lines(tree, record_of(after, "pkg/core.py"), *lines));
  EXPECT_EQ(serialize(tree), linked(after));
}

TEST(MovedLines, ABaseClassOthersInheritTestsFromMovesOnItsOwn) {
  auto records = [](const std::string& base_prefix) {
    std::vector<ModuleRecord> out;
    out.push_back(parse_module("tests/base.py", base_prefix +
                                                    "def helper():\n    return 1\n"
                                                    "class Base:\n"
                                                    "    def test_a(self):\n"
                                                    "        assert helper() == 1\n"));
    out.push_back(parse_module("tests/test_x.py", "from tests.base import Base\nclass TestX(Base):\n    pass\n"));
    return out;
  };
  expect_moved_as_linked(records(""), records("\n\n# moved down\n"), 0);
}

TEST(MovedLines, ATestFilesParametrizedTestsAndWorldSizesMove) {
  auto records = [](const std::string& gap) {
    std::vector<ModuleRecord> out;
    out.push_back(parse_module("pkg/ops.py", "def add(a, b):\n    return a + b\n"));
    out.push_back(parse_module("tests/test_ops.py",
                               "import pytest\n"
                               "from pkg.ops import add\n" +
                                   gap +
                                   "class TestAdd:\n"
                                   "    world_size = [1, 2]\n" +
                                   gap +
                                   "    @pytest.mark.parametrize('a, b', [(1, 2), (3, 4)])\n"
                                   "    def test_add(self, a, b):\n"
                                   "        assert add(a, b) > 0\n"));
    return out;
  };
  auto tree = expect_moved_as_linked(records(""), records("\n# spacing\n\n"), 1);
  ASSERT_FALSE(tree.facts.files[1].tests.empty());
  EXPECT_FALSE(tree.facts.files[1].tests[0].knobs.empty());
}

TEST(MovedLines, AnEditTheLinkerReadsIsNoMove) {
  const std::string source =
      "K = 1\n"
      "def f():\n    return g()\n"
      "def g():\n    return K + 1\n";
  auto before = parse_module("m.py", source);
  EXPECT_TRUE(moved_lines(before, parse_module("m.py", "\n" + source)).has_value());
  EXPECT_TRUE(moved_lines(before, parse_module("m.py", replaced(source, "K + 1", "K * 2"))).has_value());
  // A call, a constant the resolver reads, a name, the order of definitions: link.
  EXPECT_FALSE(moved_lines(before, parse_module("m.py", replaced(source, "return K + 1", "return f()"))).has_value());
  EXPECT_FALSE(moved_lines(before, parse_module("m.py", replaced(source, "K = 1", "K = 2"))).has_value());
  // ... unless no subscript by a name can lead linking to that literal (ConstantReads).
  ConstantReads none{true, {}, false};
  EXPECT_TRUE(moved_lines(before, parse_module("m.py", replaced(source, "K = 1", "K = 'two'")), &none).has_value());
  ConstantReads reads_k{true, {"K"}, false};
  EXPECT_FALSE(moved_lines(before, parse_module("m.py", replaced(source, "K = 1", "K = 2")), &reads_k).has_value());
  EXPECT_FALSE(moved_lines(before, parse_module("m.py", replaced(source, "return g()", "return g(7)"))).has_value());
  auto called = parse_module("m.py", replaced(source, "return g()", "return g(7, k=8)"));
  auto recalled = parse_module("m.py", replaced(source, "return g()", "return g(9, k='x')"));
  EXPECT_TRUE(moved_lines(called, recalled, &none).has_value());
  ConstantReads arguments{true, {}, true};
  EXPECT_FALSE(moved_lines(called, recalled, &arguments).has_value());
  EXPECT_FALSE(moved_lines(called, parse_module("m.py", replaced(source, "return g()", "return g(K, k=8)")), &none)
                   .has_value());
  ConstantReads unknown;  // a tree linked before they were recorded: every literal counts
  EXPECT_FALSE(moved_lines(before, parse_module("m.py", replaced(source, "K = 1", "K = 2")), &unknown).has_value());
  EXPECT_FALSE(moved_lines(before, parse_module("m.py", replaced(source, "def g", "def h"))).has_value());
  EXPECT_FALSE(moved_lines(before, parse_module("m.py",
                                               "K = 1\ndef g():\n    return K + 1\ndef f():\n    return g()\n"))
                   .has_value());
  // Two references of one line split over two lines: no single new line for the old one.
  auto joined = parse_module("n.py", "def f(): pass\ndef g(): pass\ndef h():\n    f(); g()\n");
  auto split = parse_module("n.py", "def f(): pass\ndef g(): pass\ndef h():\n    f()\n    g()\n");
  EXPECT_FALSE(moved_lines(joined, split).has_value());
  EXPECT_FALSE(moved_lines(before, parse_module("other.py", source)).has_value());
}

TEST(MovedLines, ConstantReadsFollowNamesFromSubscriptsThroughAliasesImportsAndParameters) {
  std::vector<ModuleRecord> records;
  records.push_back(parse_module("ext.py", "FIRST = 0\nUNREAD = 1\n"));
  records.push_back(parse_module("m.py",
                                 "from ext import FIRST as START\n"
                                 "KEY = START\n"
                                 "TABLE = [print, len]\n"
                                 "def pick():\n    TABLE[KEY]()\n"));
  auto reads = constant_reads(records);
  EXPECT_TRUE(reads.known);
  EXPECT_EQ(reads.names, (std::vector<std::string>{"FIRST", "KEY", "START"}));
  EXPECT_FALSE(reads.call_arguments);
  records.push_back(parse_module("n.py", "TABLE = [print, len]\ndef run(i):\n    TABLE[i]()\nrun(ROW)\n"));
  reads = constant_reads(records);
  EXPECT_TRUE(reads.call_arguments);
  EXPECT_TRUE(std::binary_search(reads.names.begin(), reads.names.end(), "ROW"));
}

TEST(MovedLines, AFileThatDeclaresExtensionsIsLinked) {
  std::vector<ModuleRecord> records;
  auto source = util::read_file(source_root() / "tests/fixtures/cpp/ext/setup.py");
  ASSERT_TRUE(source.ok());
  records.push_back(parse_module("setup.py", *source));
  ASSERT_FALSE(records[0].extensions.empty());
  auto after = parse_module("setup.py", "\n" + *source);
  auto lines = moved_lines(records[0], after);
  ASSERT_TRUE(lines.has_value());
  LinkedTree tree{link_modules(records), records[0].extensions};
  EXPECT_FALSE(move_linked_lines(tree, after, *lines));
}

}  // namespace
}  // namespace fastci::frontend::python
