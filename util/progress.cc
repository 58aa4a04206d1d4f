#include "util/progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace fastci::util {

bool Progress::enabled() {
  return isatty(STDERR_FILENO) && std::getenv("FASTCI_NO_PROGRESS") == nullptr;
}

Progress::Progress(std::string label, std::size_t total)
    : label_(std::move(label)), total_(total), active_(enabled()) {}

Progress::~Progress() { finish(); }

void Progress::advance(std::size_t count) {
  if (!active_) return;
  std::lock_guard lock(mutex_);
  done_ += count;
  auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ > std::chrono::milliseconds(100) || done_ == total_) {
    last_draw_ = now;
    draw();
  }
}

void Progress::draw() {
  std::fprintf(stderr, "\r%s: %zu/%zu", label_.c_str(), done_, total_);
  std::fflush(stderr);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (!active_ || finished_) return;
  finished_ = true;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace fastci::util
