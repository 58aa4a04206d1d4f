#pragma once
/// Compact BLOB encodings of a file's covered lines and arcs, so a store keeps one row per
/// (run, test, file) instead of one per line.
///
/// Lines: LEB128 varints, per range (gap from the previous range's end, length - 1).
/// Arcs: sorted, unique; per arc zigzag varints (from - previous from, to - from).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/records.h"

namespace fastci::evidence {

/// Sorts, drops invalid (first < 1 or last < first) ranges and merges overlapping or adjacent ones.
std::vector<LineRange> normalize_ranges(std::vector<LineRange> ranges);

/// Merges two normalized range lists.
std::vector<LineRange> merge_ranges(const std::vector<LineRange>& a, const std::vector<LineRange>& b);

/// The part of normalized `ranges` inside [range.first, range.second].
std::vector<LineRange> intersect_ranges(const std::vector<LineRange>& ranges, LineRange range);

/// Ranges from a set of line numbers (any order, duplicates allowed; lines < 1 ignored).
std::vector<LineRange> ranges_from_lines(std::vector<int> lines);

/// Encodes normalized ranges.
std::string encode_lines(const std::vector<LineRange>& ranges);

/// Decodes encode_lines() output; nullopt when the bytes are corrupt.
std::optional<std::vector<LineRange>> decode_lines(std::string_view bytes);

/// Decodes only the ranges that intersect `range`, stopping early past it; nullopt when corrupt.
std::optional<std::vector<LineRange>> decode_lines_in(std::string_view bytes, LineRange range);

/// Sorts and deduplicates arcs.
std::vector<Arc> normalize_arcs(std::vector<Arc> arcs);

/// Encodes arcs (normalizing them first).
std::string encode_arcs(const std::vector<Arc>& arcs);

/// Decodes encode_arcs() output; nullopt when the bytes are corrupt.
std::optional<std::vector<Arc>> decode_arcs(std::string_view bytes);

}  // namespace fastci::evidence
