#include "evidence/ingest/lcov_line_ranges.h"

#include <algorithm>

namespace fastci::evidence {

std::vector<LineRange> to_line_ranges(std::vector<int> lines) {
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::vector<LineRange> ranges;
  for (const int line : lines) {
    if (!ranges.empty() && ranges.back().second + 1 == line) {
      ranges.back().second = line;
    } else {
      ranges.emplace_back(line, line);
    }
  }
  return ranges;
}

}  // namespace fastci::evidence
