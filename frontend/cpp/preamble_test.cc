// The precompiled preamble changes how fast a unit parses, never what it yields: the same facts
// with and without it, on the extension fixture's C++ and CUDA units; a preamble Clang cannot read
// is dropped and the unit parsed without it.
#include "frontend/cpp/preamble.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <unistd.h>

#include "frontend/cpp/cpp_frontend.h"

namespace fastci::frontend::cpp {
namespace {

namespace fs = std::filesystem;

const fs::path kExtension = fs::path(FASTCI_SOURCE_DIR) / "tests" / "fixtures" / "cpp" / "ext";

bool has_cuda() { return fs::exists("/usr/local/cuda/include/cuda_runtime.h"); }

/// Each fixture unit three times: a missing preamble is built only for options three units share.
std::vector<std::string> sources() {
  std::vector<std::string> out;
  for (int copy = 0; copy < 3; ++copy) {
    for (const char* unit : {"csrc/ops.cpp", "csrc/shapes.cpp"}) out.emplace_back(unit);
    if (has_cuda()) out.emplace_back("csrc/kernels.cu");
  }
  return out;
}

/// Everything a unit yields, as sorted lines (the order of symbols depends on file ids).
std::set<std::string> fact_lines(const TranslationUnitFacts& unit) {
  std::set<std::string> out;
  for (const Symbol& s : unit.facts.symbols)
    out.insert("symbol " + s.id + " " + s.file + ":" + std::to_string(s.first_line) + "-" + std::to_string(s.last_line) +
               " " + std::to_string(s.body_hash));
  for (const Edge& e : unit.facts.edges)
    out.insert("edge " + std::string(to_string(e.kind)) + " " + e.from + " -> " + e.to + " @" + std::to_string(e.line));
  for (const LaunchSite& l : unit.facts.launches) out.insert("launch " + l.host_function + " -> " + l.kernel);
  for (const Binding& b : unit.facts.bindings) out.insert("binding " + b.python_name + " -> " + b.target);
  for (const HeaderDependency& h : unit.headers) out.insert("header " + h.path + " " + h.content_hash);
  out.insert("errors " + std::to_string(unit.error_count));
  return out;
}

std::vector<TranslationUnitFacts> parse(bool preamble, std::optional<fs::path> directory = std::nullopt,
                                        const std::vector<std::string>& units = sources()) {
  CppParseOptions options;
  options.repository = kExtension;
  options.threads = 1;
  options.precompiled_preamble = preamble;
  options.preamble_directory = directory;
  return parse_translation_units(units, options);
}

TEST(Preamble, TheSameFactsWithAndWithoutIt) {
  auto with = parse(true);
  auto without = parse(false);
  ASSERT_EQ(with.size(), without.size());
  for (std::size_t i = 0; i < with.size(); ++i) {
    EXPECT_TRUE(with[i].used_preamble) << sources()[i];
    EXPECT_FALSE(without[i].used_preamble);
    EXPECT_EQ(fact_lines(with[i]), fact_lines(without[i])) << sources()[i];
    EXPECT_FALSE(with[i].facts.symbols.empty());
  }
}

TEST(Preamble, AnUnreadablePreambleIsDroppedAndTheUnitParsedWithoutIt) {
  const fs::path directory = fs::temp_directory_path() / ("fastci-preamble-test-" + std::to_string(getpid()));
  fs::remove_all(directory);
  auto first = parse(true, directory);
  std::vector<fs::path> built;
  for (const auto& entry : fs::directory_iterator(directory)) built.push_back(entry.path());
  ASSERT_FALSE(built.empty());  // kept across calls in the given folder
  for (const fs::path& path : built) std::ofstream(path, std::ios::trunc) << "not a precompiled header";
  auto second = parse(true, directory);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(fact_lines(first[i]), fact_lines(second[i])) << sources()[i];
    EXPECT_FALSE(second[i].used_preamble) << sources()[i];
  }
  for (const fs::path& path : built) EXPECT_FALSE(fs::exists(path)) << path;  // discarded, rebuilt next call
  fs::remove_all(directory);
}

TEST(Preamble, BuiltOnlyForEnoughUnitsAndUsedOnceItExists) {
  // Building one costs about what three units save: a call with one unit parses it in full, unless
  // an earlier call left the preamble in the folder.
  const fs::path directory = fs::temp_directory_path() / ("fastci-preamble-few-" + std::to_string(getpid()));
  fs::remove_all(directory);
  auto alone = parse(true, directory, {"csrc/ops.cpp"});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_FALSE(alone[0].used_preamble);
  EXPECT_FALSE(fs::exists(directory) && !fs::is_empty(directory));
  parse(true, directory, {"csrc/ops.cpp", "csrc/shapes.cpp", "csrc/ops.cpp"});
  auto later = parse(true, directory, {"csrc/ops.cpp"});
  EXPECT_TRUE(later[0].used_preamble);
  EXPECT_EQ(fact_lines(later[0]), fact_lines(alone[0]));
  fs::remove_all(directory);
}

TEST(Preamble, OptionsLeaveOutTheSourceAndIncludeFolders) {
  auto options = preamble_options({"clang++", "-x", "c++", "-I/a", "-I", "/b", "-iquote/c", "-std=c++17", "-DX=1",
                                   "-fsyntax-only", "/repo/u.cpp"});
  ASSERT_TRUE(options);
  EXPECT_EQ(*options, (std::vector<std::string>{"clang++", "-x", "c++", "-std=c++17", "-DX=1"}));
  EXPECT_FALSE(preamble_options({"clang", "-x", "c", "/repo/u.c"}));
  EXPECT_FALSE(preamble_options({"clang++", "/repo/u.cpp"}));  // language not said: none
}

}  // namespace
}  // namespace fastci::frontend::cpp
