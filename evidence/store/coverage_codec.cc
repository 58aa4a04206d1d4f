#include "evidence/store/coverage_codec.h"

#include <algorithm>
#include <cstdint>

namespace fastci::evidence {

namespace {

void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

/// Reads one varint at `pos`; false on truncation or overflow.
bool get_varint(std::string_view bytes, std::size_t& pos, std::uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= bytes.size()) return false;
    auto byte = static_cast<std::uint8_t>(bytes[pos++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

std::uint64_t zigzag(std::int64_t value) {
  return (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
}

std::int64_t unzigzag(std::uint64_t value) {
  return static_cast<std::int64_t>(value >> 1) ^ -static_cast<std::int64_t>(value & 1);
}

constexpr std::int64_t kMaxLine = 1 << 30;

/// Shared decoder: calls `keep(first, last)` per range until it returns false.
template <typename Keep>
bool decode_ranges(std::string_view bytes, Keep keep) {
  std::size_t pos = 0;
  std::int64_t previous_last = 0;
  while (pos < bytes.size()) {
    std::uint64_t gap = 0, length = 0;
    if (!get_varint(bytes, pos, gap) || !get_varint(bytes, pos, length)) return false;
    if (gap == 0 && previous_last != 0) return false;  // ranges are merged, so never adjacent
    if (gap > kMaxLine || length > kMaxLine) return false;
    std::int64_t first = previous_last + static_cast<std::int64_t>(gap);
    std::int64_t last = first + static_cast<std::int64_t>(length);
    if (last > kMaxLine) return false;
    if (!keep(static_cast<int>(first), static_cast<int>(last))) return true;
    previous_last = last;
  }
  return true;
}

}  // namespace

std::vector<LineRange> normalize_ranges(std::vector<LineRange> ranges) {
  std::erase_if(ranges, [](const LineRange& r) { return r.first < 1 || r.second < r.first; });
  std::sort(ranges.begin(), ranges.end());
  std::vector<LineRange> merged;
  for (const LineRange& range : ranges) {
    if (!merged.empty() && static_cast<std::int64_t>(range.first) <=
                               static_cast<std::int64_t>(merged.back().second) + 1) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  return merged;
}

std::vector<LineRange> merge_ranges(const std::vector<LineRange>& a, const std::vector<LineRange>& b) {
  std::vector<LineRange> all = a;
  all.insert(all.end(), b.begin(), b.end());
  return normalize_ranges(std::move(all));
}

std::vector<LineRange> intersect_ranges(const std::vector<LineRange>& ranges, LineRange range) {
  std::vector<LineRange> inside;
  for (const LineRange& r : ranges) {
    if (r.second < range.first) continue;
    if (r.first > range.second) break;
    inside.emplace_back(std::max(r.first, range.first), std::min(r.second, range.second));
  }
  return inside;
}

std::vector<LineRange> ranges_from_lines(std::vector<int> lines) {
  std::vector<LineRange> ranges;
  ranges.reserve(lines.size());
  for (int line : lines) ranges.emplace_back(line, line);
  return normalize_ranges(std::move(ranges));
}

std::string encode_lines(const std::vector<LineRange>& ranges) {
  std::string out;
  std::int64_t previous_last = 0;
  for (const LineRange& range : ranges) {
    put_varint(out, static_cast<std::uint64_t>(range.first - previous_last));
    put_varint(out, static_cast<std::uint64_t>(range.second - range.first));
    previous_last = range.second;
  }
  return out;
}

std::optional<std::vector<LineRange>> decode_lines(std::string_view bytes) {
  std::vector<LineRange> ranges;
  bool ok = decode_ranges(bytes, [&](int first, int last) {
    ranges.emplace_back(first, last);
    return true;
  });
  if (!ok) return std::nullopt;
  return ranges;
}

std::optional<std::vector<LineRange>> decode_lines_in(std::string_view bytes, LineRange range) {
  std::vector<LineRange> inside;
  bool ok = decode_ranges(bytes, [&](int first, int last) {
    if (first > range.second) return false;
    if (last >= range.first) {
      inside.emplace_back(std::max(first, range.first), std::min(last, range.second));
    }
    return true;
  });
  if (!ok) return std::nullopt;
  return inside;
}

std::vector<Arc> normalize_arcs(std::vector<Arc> arcs) {
  std::sort(arcs.begin(), arcs.end());
  arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());
  return arcs;
}

std::string encode_arcs(const std::vector<Arc>& arcs) {
  std::string out;
  std::int64_t previous_from = 0;
  for (const Arc& arc : normalize_arcs(arcs)) {
    put_varint(out, zigzag(static_cast<std::int64_t>(arc.first) - previous_from));
    put_varint(out, zigzag(static_cast<std::int64_t>(arc.second) - arc.first));
    previous_from = arc.first;
  }
  return out;
}

std::optional<std::vector<Arc>> decode_arcs(std::string_view bytes) {
  std::vector<Arc> arcs;
  std::size_t pos = 0;
  std::int64_t previous_from = 0;
  while (pos < bytes.size()) {
    std::uint64_t from_delta = 0, to_delta = 0;
    if (!get_varint(bytes, pos, from_delta) || !get_varint(bytes, pos, to_delta)) return std::nullopt;
    std::int64_t from_step = unzigzag(from_delta), to_step = unzigzag(to_delta);
    auto out_of_range = [](std::int64_t step) { return step > 2 * kMaxLine || step < -2 * kMaxLine; };
    if (out_of_range(from_step) || out_of_range(to_step)) return std::nullopt;
    std::int64_t from = previous_from + from_step;
    std::int64_t to = from + to_step;
    if (from < -kMaxLine || from > kMaxLine || to < -kMaxLine || to > kMaxLine) return std::nullopt;
    arcs.emplace_back(static_cast<int>(from), static_cast<int>(to));
    previous_from = from;
  }
  return arcs;
}

}  // namespace fastci::evidence
