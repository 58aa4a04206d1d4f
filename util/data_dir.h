#pragma once
/// Where fastci's binaries find the data files they read at run time: under the installation prefix
/// (share/fastci/...) for an installed binary, in the source tree for a binary still in its build folder.

#include <filesystem>

namespace fastci::util {

/// One folder of run-time data, in both places it can be; CMake gives both from the variables its install
/// rule uses, so that what is installed and where it is looked for cannot drift apart.
struct DataFolder {
  std::filesystem::path from_binary;  ///< installed: relative to the installed binary's folder (../share/fastci/x)
  std::filesystem::path source;       ///< build tree: absolute path in the source tree the binary was built from
};

/// The workload data: knobs.toml, constraints.toml, cost.toml, megatron.toml (planner/workload/data).
DataFolder workload_data();

/// Where `folder` is for the binary at `executable` built in `build_dir`: the installed folder beside the binary
/// when it exists; else the source tree's when the binary lies inside `build_dir`; else the installed path, so
/// that reading it fails naming where an installed fastci expects its data.
std::filesystem::path data_dir(const DataFolder& folder, const std::filesystem::path& executable,
                               const std::filesystem::path& build_dir);

/// data_dir() for the running binary (/proc/self/exe) and the build folder it was compiled in.
std::filesystem::path data_dir(const DataFolder& folder);

}  // namespace fastci::util
