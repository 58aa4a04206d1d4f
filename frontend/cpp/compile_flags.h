#pragma once
/// Compile flags for parsing a source without building it: from compile_commands.json when the
/// repository has one (build-only flags stripped), otherwise a best-effort guess.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace fastci::frontend::cpp {

/// The include/define flags of one compile_commands.json entry, paths made absolute.
struct DatabaseEntry {
  std::vector<std::string> arguments;
};

/// compile_commands.json entries keyed by the absolute, normalised source path.
using CompileDatabase = std::map<std::string, DatabaseEntry>;

/// Reads compile_commands.json and keeps only the flags that matter to parsing
/// (-I, -isystem, -iquote, -idirafter, -D, -U, -include, -std); fails with file and entry on bad JSON.
util::Result<CompileDatabase> read_compile_database(const std::filesystem::path& file);

/// Splits a shell command line as compile_commands.json "command" fields write it.
std::vector<std::string> split_command_line(const std::string& command);

/// Keeps the parse-relevant flags of a compiler command (argv[0] excluded), dropping nvcc-only
/// and code-generation flags; relative include paths are resolved against `directory`.
std::vector<std::string> parse_relevant_flags(const std::vector<std::string>& arguments,
                                              const std::filesystem::path& directory);

/// Whether a path names a CUDA source or header (.cu, .cuh).
bool is_cuda_source(const std::filesystem::path& path);

/// The repository's C/C++/CUDA headers, found by the path an `#include` names.
class HeaderIndex {
 public:
  /// Every header file under `repository` (hidden folders skipped).
  static HeaderIndex scan(const std::filesystem::path& repository);
  /// Headers whose path ends with `/<include>` ("ragged_dtypes.h", "cutlass/arch/mma.h").
  std::vector<std::filesystem::path> matching(std::string_view include) const;

 private:
  std::multimap<std::string, std::filesystem::path> by_file_name_;
};

/// The include directories guessed for a source without a compile database: its own folder, then
/// every include/ or includes/ folder directly under it and under each ancestor up to the root, then
/// those of the ancestors' other children. With `headers`: then, for each `#include` the source and
/// the repository headers it reads (transitively) name that none of those folders holds, the folder
/// of the repository header of that path nearest the source (op builders add such folders).
std::vector<std::filesystem::path> guessed_include_directories(const std::filesystem::path& repository,
                                                               const std::filesystem::path& source,
                                                               const HeaderIndex* headers = nullptr);

/// Everything needed to build one command line.
struct FlagInputs {
  std::filesystem::path repository;               ///< absolute, normalised
  std::filesystem::path source;                   ///< absolute, normalised
  std::optional<std::filesystem::path> cuda_path; ///< CUDA toolkit root, if any
  std::string stub_directory;                     ///< where the stub headers are served; empty: none
  const DatabaseEntry* database_entry = nullptr;  ///< the source's compile_commands entry, if any
  const HeaderIndex* headers = nullptr;            ///< for includes the guessed folders miss
  std::vector<std::string> extra_arguments;
};

/// The full Clang command line: argv[0], language and CUDA flags, includes, -fsyntax-only, source.
std::vector<std::string> build_command_line(const FlagInputs& inputs);

/// Clang's resource directory for the version this frontend is built against.
std::string clang_resource_directory();

}  // namespace fastci::frontend::cpp
