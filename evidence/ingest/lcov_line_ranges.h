#pragma once
/// Turning sets of executed line numbers into the sorted, merged ranges of FileCoverage.

#include <vector>

#include "evidence/records.h"

namespace fastci::evidence {

/// Sorts, de-duplicates and merges consecutive lines into inclusive [first, last] ranges.
std::vector<LineRange> to_line_ranges(std::vector<int> lines);

}  // namespace fastci::evidence
