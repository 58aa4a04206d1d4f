#pragma once
/// Exit statuses of the fastci commands (documented in README.md).

namespace fastci::cli {

inline constexpr int kSuccess = 0;        ///< done; the plan or answer is written
inline constexpr int kInternalError = 1;  ///< a bug in fastci: please report it
inline constexpr int kUsageError = 2;     ///< bad command-line arguments
inline constexpr int kInputError = 3;     ///< bad input: unknown ref, not a repository, bad config
inline constexpr int kNotFound = 4;       ///< explain/graph: no such test or symbol

}  // namespace fastci::cli
