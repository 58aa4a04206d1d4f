#pragma once
/// One-line progress display for long work; silent when stderr is not a terminal (CI logs).

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace fastci::util {

/// Counts work items and redraws "label: done/total" on the terminal at most ~10 times a second.
class Progress {
 public:
  Progress(std::string label, std::size_t total);
  ~Progress();
  /// Records `count` more finished items; thread-safe.
  void advance(std::size_t count = 1);
  /// Clears the line; called by the destructor too.
  void finish();
  /// Whether progress is drawn at all (stderr is a terminal and FASTCI_NO_PROGRESS is unset).
  static bool enabled();

 private:
  void draw();
  std::string label_;
  std::size_t total_;
  std::size_t done_ = 0;
  bool active_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
  std::mutex mutex_;
};

}  // namespace fastci::util
