#pragma once
/// Which test is running now, as the test runner announces it, read cheaply on the launch path.

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/spin_lock.h"

namespace fastci::cuda {

/// Where the current test id comes from.
struct CurrentTestOptions {
  std::string file;            ///< FASTCI_CURRENT_TEST_FILE: rewritten by the runner at each test boundary
  std::string fixed_test;      ///< FASTCI_CURRENT_TEST: the test id when there is no file
  std::uint64_t poll_interval_ns = 1'000'000;  ///< FASTCI_TEST_POLL_MS (may be fractional; 0 = every call)

  /// Options from the environment variables named above.
  static CurrentTestOptions from_environment();
};

/// Interns test ids and tracks the current one. current() costs one clock read and one relaxed load
/// until the poll interval has passed; then one caller stat()s the file and re-reads it if its
/// inode, size or modification time changed.
class CurrentTest {
 public:
  explicit CurrentTest(CurrentTestOptions options);

  /// Index (into names()) of the test running now; index 0 is the test outside any announced test.
  std::uint32_t current() noexcept;
  /// Re-reads the file now, whatever the poll interval says.
  void refresh() noexcept;
  /// Test ids by index.
  std::vector<std::string> names() const;
  /// Index of a test id, adding it when new.
  std::uint32_t intern(const std::string& test);
  /// Drops lock ownership inherited through fork().
  void reset_after_fork() noexcept;

 private:
  /// What identifies one version of the file.
  struct FileVersion {
    std::uint64_t inode = 0;
    std::int64_t size = -1;
    std::int64_t modified_ns = 0;
    bool operator==(const FileVersion&) const = default;
  };

  CurrentTestOptions options_;
  std::atomic<std::uint32_t> current_{0};
  std::atomic<std::uint64_t> next_check_ns_{0};
  mutable SpinLock lock_;          // guards names_, index_ and seen_
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> index_;
  FileVersion seen_;
};

/// CLOCK_MONOTONIC in nanoseconds (vDSO, no system call).
std::uint64_t monotonic_ns() noexcept;

}  // namespace fastci::cuda
