#pragma once
/// Exit statuses of fastci, fastci-analyze and fastci-shrink (README.md's exit status table).

namespace fastci::util {

inline constexpr int kSuccess = 0;        ///< done; the plan or answer is written
inline constexpr int kInternalError = 1;  ///< a bug in fastci: please report it
inline constexpr int kUsageError = 2;     ///< bad command-line arguments
inline constexpr int kInputError = 3;     ///< bad input: unknown ref, not a repository, bad config
inline constexpr int kNotFound = 4;       ///< explain/graph: no such test or symbol

}  // namespace fastci::util
