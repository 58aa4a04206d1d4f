#include "planner/data_files.h"

#include <gtest/gtest.h>

#include <map>

namespace fastci::planner {
namespace {

std::vector<int> lines_of(const std::vector<DataFileReference>& refs) {
  std::vector<int> out;
  for (const auto& r : refs) out.push_back(r.line);
  return out;
}

TEST(DataFileReferences, FileNameOrStemInsideQuotesOrAfterASlash) {
  const std::string text =
      "GEMMA = ASSETS / \"tokenizer_config_gemma.json\"\n"        // 1: the file name, quoted
      "OTHER = ASSETS / \"tokenizer_config_gemma.json.bak\"\n"    // 2: a longer name
      "Recipe(name=\"llama2/1B_qat_single_device\")\n"            // 3: the stem after a folder
      "x = my_tokenizer_config_gemma_json\n"                       // 4: an identifier, not a name
      "y = f'{root}/tokenizer_config_gemma.json'\n";               // 5: in an f-string path
  EXPECT_EQ(lines_of(data_file_references("tests/assets/tokenizer_config_gemma.json", true, text)),
            (std::vector<int>{1, 5}));
  EXPECT_EQ(lines_of(data_file_references("recipes/configs/llama2/1B_qat_single_device.yaml", true, text)),
            (std::vector<int>{3}));
}

TEST(DataFileReferences, FolderNamesCountOnlyForFilesThatExistedBefore) {
  const std::string text =
      "def get_assets_path():\n"
      "    return Path(__file__).parent / \"assets\"\n";
  EXPECT_EQ(lines_of(data_file_references("tests/assets/tokenizer.model", false, text)), (std::vector<int>{2}));
  // Unchanged code cannot build the name of a file that did not exist: an added file needs its name.
  EXPECT_TRUE(data_file_references("tests/assets/tokenizer.model", true, text).empty());
}

TEST(DataFileReferences, ListingsInAFileNamingTheFolder) {
  const std::string listing =
      "CONFIG_DIR = Path(torchtune.__file__).parent.parent / \"recipes\" / \"configs\"\n"
      "def test_instantiate():\n"
      "    for f in os.listdir(CONFIG_DIR):\n"
      "        load(f)\n";
  auto refs = data_file_references("recipes/configs/eleuther_evaluation.yaml", true, listing);
  ASSERT_EQ(lines_of(refs), (std::vector<int>{3}));
  EXPECT_NE(refs[0].how.find("lists a folder"), std::string::npos);
  EXPECT_EQ(lines_of(data_file_references("recipes/configs/eleuther_evaluation.yaml", false, listing)),
            (std::vector<int>{1, 3}));
  // A listing in a file naming none of its folders reads something else.
  EXPECT_TRUE(data_file_references("tests/assets/x.json", true, listing).empty());
}

frontend::FileFacts facts_of(const std::string& path, std::vector<frontend::Symbol> symbols) {
  frontend::FileFacts f;
  f.path = path;
  f.symbols = std::move(symbols);
  return f;
}

frontend::Symbol symbol(const std::string& name, frontend::SymbolKind kind, const std::string& file, int first, int last) {
  frontend::Symbol s;
  s.id = "py:" + name;
  s.kind = kind;
  s.qualified_name = name;
  s.file = file;
  s.first_line = first;
  s.last_line = last;
  return s;
}

struct Tree {
  std::map<std::string, std::string> texts;
  std::map<std::string, frontend::FileFacts> facts;
  TreeSources sources() const {
    TreeSources t;
    for (const auto& [path, _] : texts) t.paths.push_back(path);
    t.read = [this](const std::string& path) -> const std::string* {
      auto it = texts.find(path);
      return it == texts.end() ? nullptr : &it->second;
    };
    return t;
  }
  FactsLookup lookup() const {
    return [this](const std::string& path) -> const frontend::FileFacts* {
      auto it = facts.find(path);
      return it == facts.end() ? nullptr : &it->second;
    };
  }
};

/// A tree of one Python file, pkg/mod.py, whose lines 1-2 are the function pkg.mod.f.
Tree one_function(const std::string& text) {
  Tree tree;
  tree.texts["pkg/mod.py"] = text;
  tree.facts["pkg/mod.py"] = facts_of("pkg/mod.py", {symbol("pkg.mod.f", frontend::SymbolKind::function, "pkg/mod.py", 1, 2)});
  return tree;
}

ChangeSet unknown_change(const std::string& path, FileStatus status) {
  ChangeSet c;
  ChangedFile f;
  f.path = path;
  f.status = status;
  f.kind = FileKind::unknown;
  c.files.push_back(f);
  c.widenings.push_back({Widening::Scope::everything, path, kUnknownKindWidening, {}});
  return c;
}

TEST(MapDataFiles, NamedFileBecomesItsReadersWithTheLineSaid) {
  Tree tree;
  const std::string test_file = "tests/test_tok.py";
  tree.texts[test_file] =
      "import x\n"
      "PATH = ASSETS / \"tok.json\"\n"
      "def test_a():\n"
      "    load(PATH)\n"
      "def helper():\n"
      "    return open('assets/tok.json')\n";
  tree.facts[test_file] = facts_of(test_file, {symbol("tests.test_tok", frontend::SymbolKind::module, test_file, 1, 6),
                                               symbol("tests.test_tok.PATH", frontend::SymbolKind::variable, test_file, 2, 2),
                                               symbol("tests.test_tok.test_a", frontend::SymbolKind::test, test_file, 3, 4),
                                               symbol("tests.test_tok.helper", frontend::SymbolKind::function, test_file, 5, 6)});
  tree.texts["tests/assets/tok.json"] = "{}";
  auto changes = unknown_change("tests/assets/tok.json", FileStatus::modified);
  map_data_files(tree.sources(), tree.lookup(), changes);
  EXPECT_EQ(changes.files[0].kind, FileKind::data);
  ASSERT_EQ(changes.symbols.size(), 2u);
  EXPECT_EQ(changes.symbols[0].id, "py:tests.test_tok.PATH");
  EXPECT_EQ(changes.symbols[1].id, "py:tests.test_tok.helper");
  ASSERT_EQ(changes.widenings.size(), 2u);
  for (const auto& w : changes.widenings) EXPECT_EQ(w.scope, Widening::Scope::symbol);
  EXPECT_NE(changes.widenings[0].reason.find("tests/test_tok.py:2 names it"), std::string::npos)
      << changes.widenings[0].reason;
}

TEST(MapDataFiles, UnnamedFileOrOneANonCodeFileNamesKeepsTheWholeSuite) {
  Tree tree = one_function("def f():\n    return 1\n");
  auto changes = unknown_change(".github/workflows/gpu.yaml", FileStatus::modified);
  map_data_files(tree.sources(), tree.lookup(), changes);
  EXPECT_EQ(changes.files[0].kind, FileKind::unknown);
  ASSERT_EQ(changes.widenings.size(), 1u);
  EXPECT_EQ(changes.widenings[0].scope, Widening::Scope::everything);
  EXPECT_NE(changes.widenings[0].reason.find("no code names it"), std::string::npos);

  // Named by code, but also by a configuration: whatever reads the configuration is not followed.
  tree.texts["pkg/mod.py"] = "def f():\n    return open('data/table.csv')\n";
  tree.texts["configs/run.yaml"] = "table: data/table.csv\n";
  changes = unknown_change("data/table.csv", FileStatus::modified);
  map_data_files(tree.sources(), tree.lookup(), changes);
  EXPECT_EQ(changes.files[0].kind, FileKind::unknown);
  ASSERT_EQ(changes.widenings.size(), 1u);
  EXPECT_NE(changes.widenings[0].reason.find("configs/run.yaml names it"), std::string::npos);
  EXPECT_TRUE(changes.symbols.empty());
}

TEST(MapDataFiles, NamedFileIsMappedWhereUnknownFilesAreIgnoredToo) {
  Tree tree = one_function("def f():\n    return open('data/table.csv')\n");
  auto changes = unknown_change("data/table.csv", FileStatus::modified);
  changes.widenings.clear();  // unknown_files = "ignore"
  map_data_files(tree.sources(), tree.lookup(), changes);
  EXPECT_EQ(changes.files[0].kind, FileKind::data);
  ASSERT_EQ(changes.symbols.size(), 1u);
  EXPECT_EQ(changes.symbols[0].id, "py:pkg.mod.f");
}

TEST(MapDataFiles, ModuleLevelStatementSelectsTheModulesImporters) {
  Tree tree;
  tree.texts["pkg/load.py"] = "import json\nprint(open('tables/t.json').read())\n";
  tree.facts["pkg/load.py"] = facts_of("pkg/load.py", {symbol("pkg.load", frontend::SymbolKind::module, "pkg/load.py", 1, 2)});
  auto changes = unknown_change("tables/t.json", FileStatus::modified);
  map_data_files(tree.sources(), tree.lookup(), changes);
  EXPECT_EQ(changes.files[0].kind, FileKind::data);
  ASSERT_EQ(changes.widenings.size(), 1u);
  EXPECT_EQ(changes.widenings[0].scope, Widening::Scope::importers);
  EXPECT_EQ(changes.widenings[0].detail, "py:pkg.load");
}

}  // namespace
}  // namespace fastci::planner
