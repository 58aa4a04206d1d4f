#include "frontend/cpp/compile_flags.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fastci::frontend::cpp {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(FASTCI_SOURCE_DIR) / "tests" / "fixtures" / "cpp";

bool contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

/// The CMake-written database with its capture-time source root replaced by this checkout's.
fs::path relocated_nvcc_database() {
  std::ifstream in(kFixtures / "compile_commands" / "nvcc_cmake.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string json = text.str();
  const std::string captured = "/work/main/";
  const std::string replacement = std::string(FASTCI_SOURCE_DIR) + "/";
  for (std::size_t at = json.find(captured); at != std::string::npos; at = json.find(captured, at + replacement.size()))
    json.replace(at, captured.size(), replacement);
  const fs::path out = fs::temp_directory_path() / "fastci_cpp_flags_test_compile_commands.json";
  std::ofstream(out) << json;
  return out;
}

TEST(SplitCommandLine, HonoursQuotesAndEscapes) {
  EXPECT_EQ(split_command_line(R"(c++ -DNAME="a b" -I'x y' a\ b.cpp)"),
            (std::vector<std::string>{"c++", "-DNAME=a b", "-Ix y", "a b.cpp"}));
}

TEST(ParseRelevantFlags, KeepsIncludesDefinesAndStandardDropsCodeGeneration) {
  const std::vector<std::string> nvcc = split_command_line(
      "-forward-unknown-to-host-compiler -DTORCH_EXTENSION_NAME=ops -I include -isystem=/opt/x "
      "--generate-code=arch=compute_80,code=[compute_80,sm_80] --expt-relaxed-constexpr -Xcompiler=-fPIC "
      "-std=c++17 -x cu -c kernels.cu -o kernels.o");
  EXPECT_EQ(parse_relevant_flags(nvcc, "/build"),
            (std::vector<std::string>{"-DTORCH_EXTENSION_NAME=ops", "-I", "/build/include", "-isystem", "/opt/x",
                                      "-std=c++17"}));
}

TEST(ReadCompileDatabase, ReadsCMakeNvccDatabase) {
  const auto database = read_compile_database(relocated_nvcc_database());
  ASSERT_TRUE(database.ok()) << database.error().to_string();
  const std::string kernels = (kFixtures / "ext" / "csrc" / "kernels.cu").lexically_normal().string();
  ASSERT_TRUE(database->contains(kernels));
  const auto& arguments = database->at(kernels).arguments;
  EXPECT_TRUE(contains(arguments, "-DTORCH_EXTENSION_NAME=fixture_ops"));
  EXPECT_TRUE(contains(arguments, (kFixtures / "ext" / "csrc" / "include").lexically_normal().string()));
  for (const std::string& argument : arguments) {
    EXPECT_EQ(argument.find("generate-code"), std::string::npos) << argument;
    EXPECT_EQ(argument.find("forward-unknown"), std::string::npos) << argument;
  }
  EXPECT_EQ(database->size(), 3u);
}

TEST(ReadCompileDatabase, RejectsMalformedInputWithFileName) {
  const fs::path bad = fs::temp_directory_path() / "fastci_cpp_flags_test_bad.json";
  std::ofstream(bad) << R"([{"file": "a.cpp"}])";
  const auto database = read_compile_database(bad);
  ASSERT_FALSE(database.ok());
  EXPECT_EQ(database.error().file, bad.string());
  EXPECT_NE(database.error().message.find("entry 1"), std::string::npos);
  EXPECT_FALSE(read_compile_database(kFixtures / "does-not-exist.json").ok());
}

// DeepSpeed's ragged ops: inference/v2/ragged/csrc/ragged_ops.cpp includes ds_kernel_utils.h from
// inference/v2/kernels/includes, which its op builder adds.
TEST(GuessedIncludeDirectories, ThenIncludeFoldersOfTheAncestorsOtherChildren) {
  const fs::path repository = fs::temp_directory_path() / ("fastci-include-guess-" + std::to_string(::getpid()));
  const fs::path v2 = repository / "deepspeed" / "inference" / "v2";
  for (const fs::path& folder : {v2 / "ragged" / "csrc", v2 / "ragged" / "includes", v2 / "kernels" / "includes",
                                 v2 / "kernels" / "core_ops", repository / "csrc" / "includes"})
    fs::create_directories(folder);
  const auto directories = guessed_include_directories(repository, v2 / "ragged" / "csrc" / "ragged_ops.cpp");
  EXPECT_EQ(directories, (std::vector<fs::path>{v2 / "ragged" / "csrc", v2 / "ragged" / "includes",
                                                v2 / "kernels" / "includes"}));
  fs::remove_all(repository);
}

TEST(GuessedIncludeDirectories, ThenTheFoldersOfRepositoryHeadersTheIncludesName) {
  // DeepSpeed's ragged ops include "ragged_dtypes.h" from inference/v2/ragged/includes through a header,
  // and aio units include <deepspeed_aio_common.h> from csrc/aio/common: folders their op builders add.
  const fs::path repository = fs::temp_directory_path() / ("fastci-named-headers-" + std::to_string(::getpid()));
  const fs::path ops = repository / "v2" / "kernels" / "ragged_ops" / "embed";
  for (const fs::path& folder : {ops, repository / "v2" / "ragged" / "includes", repository / "aio" / "common",
                                 repository / "aio" / "py_lib", repository / "one" / "dup", repository / "two" / "dup"})
    fs::create_directories(folder);
  auto write = [](const fs::path& file, const std::string& text) { std::ofstream(file) << text; };
  write(ops / "embed.cpp", "#include \"embed.cuh\"\n#include <vector>\n#include \"dup.h\"\n");
  write(ops / "embed.cuh", "  #  include \"ragged_dtypes.h\"\n");
  write(repository / "v2" / "ragged" / "includes" / "ragged_dtypes.h", "#include <deepspeed_aio_common.h>\n");
  write(repository / "aio" / "common" / "deepspeed_aio_common.h", "#pragma once\n");
  write(repository / "one" / "dup" / "dup.h", "");  // two equally near candidates: no guess
  write(repository / "two" / "dup" / "dup.h", "");
  const auto index = HeaderIndex::scan(repository);
  EXPECT_EQ(index.matching("ragged_dtypes.h"), std::vector<fs::path>{repository / "v2" / "ragged" / "includes" / "ragged_dtypes.h"});
  EXPECT_TRUE(index.matching("includes/ragged_dtypes.h").size() == 1);
  EXPECT_TRUE(index.matching("other/ragged_dtypes.h").empty());
  const auto directories = guessed_include_directories(repository, ops / "embed.cpp", &index);
  EXPECT_EQ(directories, (std::vector<fs::path>{ops, repository / "v2" / "ragged" / "includes", repository / "aio" / "common"}));
  // Without the index: the ancestors' children's include folders only; aio/common is nobody's.
  EXPECT_EQ(guessed_include_directories(repository, ops / "embed.cpp"),
            (std::vector<fs::path>{ops, repository / "v2" / "ragged" / "includes"}));
  fs::remove_all(repository);
}

TEST(GuessedIncludeDirectories, FindsIncludeFoldersOfAncestors) {
  const fs::path repository = kFixtures / "ext";
  const auto directories = guessed_include_directories(repository, repository / "csrc" / "ops.cpp");
  EXPECT_EQ(directories, (std::vector<fs::path>{repository / "csrc", repository / "csrc" / "include"}));
}

TEST(BuildCommandLine, CudaSourceGetsHostOnlyCudaFlags) {
  FlagInputs inputs;
  inputs.repository = kFixtures / "ext";
  inputs.source = inputs.repository / "csrc" / "kernels.cu";
  inputs.cuda_path = "/usr/local/cuda";
  inputs.stub_directory = "/stubs";
  const auto line = build_command_line(inputs);
  for (const char* flag : {"cuda", "--cuda-host-only", "-nocudalib", "--cuda-path=/usr/local/cuda", "-std=c++17",
                           "-ferror-limit=0", "-Wno-c++11-narrowing", "-fsyntax-only", "-isystem/stubs",
                           "-isystem/usr/local/cuda/include/cccl"})
    EXPECT_TRUE(contains(line, flag)) << flag;
  EXPECT_TRUE(contains(line, clang_resource_directory()));
  EXPECT_EQ(line.back(), inputs.source.string());
}

TEST(BuildCommandLine, WithoutCudaForceIncludesMinimalCudaHeader) {
  FlagInputs inputs;
  inputs.repository = kFixtures / "ext";
  inputs.source = inputs.repository / "csrc" / "kernels.cu";
  inputs.stub_directory = "/stubs";
  const auto line = build_command_line(inputs);
  EXPECT_TRUE(contains(line, "-nocudainc"));
  EXPECT_TRUE(contains(line, "/stubs/fastci/cuda_minimal.h"));
}

TEST(BuildCommandLine, DatabaseFlagsReplaceGuessedIncludes) {
  DatabaseEntry entry{{"-DX=1", "-I", "/somewhere", "-std=c++20"}};
  FlagInputs inputs;
  inputs.repository = kFixtures / "ext";
  inputs.source = inputs.repository / "csrc" / "ops.cpp";
  inputs.database_entry = &entry;
  const auto line = build_command_line(inputs);
  EXPECT_TRUE(contains(line, "-DX=1"));
  EXPECT_TRUE(contains(line, "-std=c++20"));
  EXPECT_FALSE(contains(line, "-std=c++17"));
  EXPECT_FALSE(contains(line, "-I" + (inputs.repository / "csrc" / "include").string()));
}

}  // namespace
}  // namespace fastci::frontend::cpp
