#pragma once
/// Test support: runs a fixture program with extra environment and reads the evidence it leaves.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fastci::cuda::testing {

/// What a finished program left behind.
struct ProgramRun {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together
};

/// Runs `program` with `arguments`, the current environment plus `environment` (an empty value removes
/// a variable), and waits for it.
ProgramRun run_program(const std::string& program, const std::vector<std::string>& arguments,
                       const std::map<std::string, std::string>& environment);

/// A fresh empty directory under the system temporary directory, removed with what it holds when
/// the test program exits.
std::string make_temporary_directory();

/// All JSON lines of the files in `directory` whose names start with `prefix`, in file-name order.
std::vector<nlohmann::json> read_evidence(const std::string& directory, const std::string& prefix);

/// Names of the files in `directory`.
std::vector<std::string> list_directory(const std::string& directory);

}  // namespace fastci::cuda::testing
