#pragma once
/// Precompiled preambles: the C++ standard library (and, in CUDA mode, Clang's CUDA wrapper
/// headers) parsed once into a precompiled header per set of language options and reused by every
/// translation unit compiled with those options. Those headers are most of what a unit with the
/// stub headers parses, and the same for every unit; a unit then includes the PCH first, as if
/// `-include` had named them, which the headers' own include guards make a no-op later.
/// Clang-facing (included by cpp_frontend.cc only).

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <llvm/ADT/IntrusiveRefCntPtr.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace fastci::frontend::cpp {

/// The options a preamble depends on: a unit's command line (argv[0] first, source last) without
/// its source, `-fsyntax-only` and include folders (they do not change what the standard headers
/// declare); none for languages the preamble is not for (C, assembly).
std::optional<std::vector<std::string>> preamble_options(const std::vector<std::string>& command_line);

/// Builds and hands out preambles. Thread safe: units of one run share it.
class PreambleCache {
 public:
  /// `directory`: where preambles are kept across runs (a state folder); none: a temporary folder
  /// removed with the cache. `files`: the file system Clang sees (the stub headers mounted).
  PreambleCache(std::optional<std::filesystem::path> directory,
                llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> files);
  ~PreambleCache();
  PreambleCache(const PreambleCache&) = delete;
  PreambleCache& operator=(const PreambleCache&) = delete;

  /// Counts a unit the call will parse with this command line (before any preamble_for): a missing
  /// preamble is built only for options enough units share; one already on disk is always used.
  void expect(const std::vector<std::string>& command_line);
  /// The preamble for a unit's command line, built on first use; none where there is none for its
  /// language, too few units share it, or it could not be built (the unit then parses everything).
  std::optional<std::string> preamble_for(const std::vector<std::string>& command_line);
  /// Forgets a preamble Clang refused to read (stale after a system update); it is rebuilt next time.
  void discard(const std::string& path);

 private:
  std::optional<std::string> build(const std::vector<std::string>& options, const std::filesystem::path& output);
  /// The file name of the preamble for a set of options (preamble_options).
  static std::string name_of(const std::vector<std::string>& options);

  std::filesystem::path directory_;
  bool temporary_ = false;
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> files_;
  std::mutex mutex_;
  std::map<std::string, std::optional<std::string>> built_;  ///< by file name: path, or none when building failed
  std::map<std::string, int> expected_;                      ///< by file name: units of this call
};

/// Mounts the preamble's source where Clang looks for it: building a preamble reads it, and
/// reading one checks it is unchanged, so every file system units are parsed with has it.
void add_preamble_header(llvm::vfs::InMemoryFileSystem& files);

/// Whether a unit's diagnostics say Clang could not use its preamble.
bool preamble_rejected(const std::string& diagnostic_message);

}  // namespace fastci::frontend::cpp
