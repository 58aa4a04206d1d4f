#pragma once
/// Where fastci keeps its per-repository state: the index cache, the last plan, the default store.

#include <filesystem>

namespace fastci::util {

/// The state folder: `chosen` when given (--state-dir), else REPOSITORY/.fastci. Every command
/// that reads or writes state asks here, so `fastci explain --state-dir D` finds what
/// `fastci-analyze --state-dir D` wrote.
inline std::filesystem::path state_dir(const std::filesystem::path& repository, const std::filesystem::path& chosen = {}) {
  return chosen.empty() ? repository / ".fastci" : chosen;
}

/// The last plan fastci-analyze wrote, which `fastci explain` reads by default.
inline std::filesystem::path last_plan_file(const std::filesystem::path& state) { return state / "last-plan.json"; }

}  // namespace fastci::util
