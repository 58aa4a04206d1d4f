// Changed #include lines of a unit: mapped to the functions that use what they bring.
#include "planner/include_changes.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace fastci::planner {
namespace {

using frontend::EdgeKind;
using frontend::FileFacts;
using frontend::Symbol;
using frontend::SymbolKind;

TEST(IncludeDirective, ReadsTheNameAndHowItWasSpelled) {
  auto quoted = parse_include_directive("#include \"shm.h\"");
  ASSERT_TRUE(quoted);
  EXPECT_EQ(quoted->name, "shm.h");
  EXPECT_TRUE(quoted->quoted);
  auto angled = parse_include_directive("  #  include <oneapi/ccl.hpp>  // the CCL API");
  ASSERT_TRUE(angled);
  EXPECT_EQ(angled->name, "oneapi/ccl.hpp");
  EXPECT_FALSE(angled->quoted);
  for (const char* other : {"#define INCLUDE 1", "// #include \"x.h\"", "#include", "#include <>", "#include_next <x.h>",
                            "#pragma once", "int include = 0;"})
    EXPECT_FALSE(parse_include_directive(other)) << other;
}

/// ccl.cpp at base reads torch stubs only; at head it also includes shm.h, which declares
/// all_reduce_outer_loop (defined in shm.cpp). inference_all_reduce calls it; get_rank does not.
struct Fixture {
  std::map<std::string, FileFacts> base, head;
  frontend::RepositoryFacts linked;
  std::map<std::string, std::set<std::string>> includers;
  ChangeSet changes;

  Fixture() {
    FileFacts unit_base{.path = "csrc/ccl.cpp"};
    unit_base.imported_modules = {"csrc/includes/stub.h"};
    base[unit_base.path] = unit_base;
    FileFacts unit = unit_base;
    unit.imported_modules = {"csrc/includes/stub.h", "csrc/shm.h", "csrc/includes/vec.h"};
    unit.symbols = {function("cpp:inference_all_reduce(at::Tensor &)", "csrc/ccl.cpp"),
                    function("cpp:get_rank()", "csrc/ccl.cpp")};
    unit.edges = {{"cpp:inference_all_reduce(at::Tensor &)", "cpp:all_reduce_outer_loop(at::Tensor &)", EdgeKind::call,
                   "csrc/ccl.cpp", 12},
                  {"cpp:get_rank()", "cpp:stub_rank()", EdgeKind::call, "csrc/ccl.cpp", 20}};
    FileFacts header{.path = "csrc/shm.h"};
    Symbol prototype;
    prototype.id = "cpp-proto:cpp:all_reduce_outer_loop(at::Tensor &)@csrc/shm.h";
    prototype.kind = SymbolKind::declaration;
    prototype.file = "csrc/shm.h";
    header.symbols = {prototype};
    FileFacts shm{.path = "csrc/shm.cpp"};
    shm.symbols = {function("cpp:all_reduce_outer_loop(at::Tensor &)", "csrc/shm.cpp")};
    head = {{unit.path, unit}, {header.path, header}, {shm.path, shm}};
    for (const auto& [path, facts] : head) linked.files.push_back(facts);
    changes.files.push_back({.path = "csrc/ccl.cpp", .kind = FileKind::native});
  }

  static Symbol function(const std::string& id, const std::string& file) {
    Symbol s;
    s.id = id;
    s.kind = SymbolKind::function;
    s.file = file;
    s.qualified_name = id.substr(4);
    return s;
  }

  void map() {
    auto graph = callgraph::CallGraph::build(linked);
    FactsLookup b = [&](const std::string& p) -> const FileFacts* { return base.contains(p) ? &base.at(p) : nullptr; };
    FactsLookup h = [&](const std::string& p) -> const FileFacts* { return head.contains(p) ? &head.at(p) : nullptr; };
    map_include_changes(b, h, includers, graph, changes);
  }
};

TEST(IncludeChanges, ANewRepositoryHeaderChangesTheFunctionsUsingItsDeclarationsOnly) {
  Fixture f;
  f.changes.includes.push_back({"csrc/ccl.cpp", 9, "#include \"shm.h\"", true});
  f.map();
  ASSERT_EQ(f.changes.symbols.size(), 1u);
  EXPECT_EQ(f.changes.symbols[0].id, "cpp:inference_all_reduce(at::Tensor &)");
  EXPECT_TRUE(f.changes.widenings.empty());
  EXPECT_NE(f.changes.files[0].note.find("line 9 (`#include \"shm.h\"`) newly brings 2 header(s)"), std::string::npos)
      << f.changes.files[0].note;
}

TEST(IncludeChanges, AnIncludeInAHeaderCountsInEveryUnitReadingIt) {
  // comm.h, read by ccl.cpp, now includes shm.h: ccl.cpp reads shm.h only since the change.
  Fixture f;
  f.head["csrc/comm.h"] = FileFacts{.path = "csrc/comm.h"};
  f.linked.files.push_back(f.head["csrc/comm.h"]);
  f.includers["csrc/comm.h"] = {"csrc/ccl.cpp"};
  f.changes.files[0].path = "csrc/comm.h";
  f.changes.includes.push_back({"csrc/comm.h", 3, "#include \"shm.h\"", true});
  f.map();
  ASSERT_EQ(f.changes.symbols.size(), 1u);
  EXPECT_EQ(f.changes.symbols[0].id, "cpp:inference_all_reduce(at::Tensor &)");
  EXPECT_NE(f.changes.files[0].note.find("into 1 unit(s)"), std::string::npos) << f.changes.files[0].note;
  // A header no unit reads: said, nothing else.
  Fixture unread;
  unread.changes.files[0].path = "csrc/unread.h";
  unread.changes.includes.push_back({"csrc/unread.h", 3, "#include \"shm.h\"", true});
  unread.map();
  EXPECT_TRUE(unread.changes.symbols.empty());
  EXPECT_TRUE(unread.changes.widenings.empty());
  EXPECT_NE(unread.changes.files[0].note.find("a header no parsed unit reads"), std::string::npos);
}

TEST(IncludeChanges, AHeaderTheUnitAlreadyReadChangesNothing) {
  Fixture f;
  f.base["csrc/ccl.cpp"].imported_modules = f.head["csrc/ccl.cpp"].imported_modules;
  f.changes.includes.push_back({"csrc/ccl.cpp", 9, "#include \"shm.h\"", true});
  f.map();
  EXPECT_TRUE(f.changes.symbols.empty());
  EXPECT_TRUE(f.changes.widenings.empty());
  EXPECT_NE(f.changes.files[0].note.find("adds no header the units reading it did not read already"), std::string::npos);
}

TEST(IncludeChanges, AHeaderOutsideTheRepositoryWidensTheUnitWithItsLine) {
  Fixture f;
  f.changes.includes.push_back({"csrc/ccl.cpp", 3, "#include <immintrin.h>", true});
  f.map();
  ASSERT_EQ(f.changes.widenings.size(), 1u);
  EXPECT_EQ(f.changes.widenings[0].scope, Widening::Scope::native_units);
  EXPECT_EQ(f.changes.widenings[0].file, "csrc/ccl.cpp");
  EXPECT_NE(f.changes.widenings[0].reason.find("line 3 (`#include <immintrin.h>`)"), std::string::npos);
}

TEST(IncludeChanges, ARemovedIncludeIsLeftToTheErrorsItCausesAtHead) {
  Fixture f;
  f.changes.includes.push_back({"csrc/ccl.cpp", 8, "#include <fcntl.h>", false});
  f.map();
  EXPECT_TRUE(f.changes.symbols.empty());
  EXPECT_TRUE(f.changes.widenings.empty());
  EXPECT_NE(f.changes.files[0].note.find("removed"), std::string::npos);
}

}  // namespace
}  // namespace fastci::planner
