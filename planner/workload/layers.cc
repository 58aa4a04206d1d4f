#include "planner/workload/layers.h"

#include <algorithm>
#include <cctype>

namespace fastci::planner::workload {
namespace {

/// Reader for the small Python subset Megatron's --moe-layer-freq accepts in tests.
class ListReader {
 public:
  explicit ListReader(const std::string& text) : text_(text) {}

  std::optional<std::vector<int>> read() {
    std::vector<int> out;
    bool parenthesised = accept('(');
    do {
      auto term = read_term();
      if (!term) return std::nullopt;
      out.insert(out.end(), term->begin(), term->end());
    } while (accept('+'));
    if (parenthesised && !accept(')')) return std::nullopt;
    skip_space();
    if (position_ != text_.size() || out.empty()) return std::nullopt;
    return out;
  }

 private:
  std::optional<std::vector<int>> read_term() {
    if (!accept('[')) return std::nullopt;
    std::vector<int> items;
    if (!accept(']')) {
      do {
        auto number = read_number();
        if (!number) return std::nullopt;
        items.push_back(*number);
      } while (accept(','));
      if (!accept(']')) return std::nullopt;
    }
    if (accept('*')) {
      auto count = read_number();
      if (!count || *count < 0 || *count > 100000) return std::nullopt;
      std::vector<int> repeated;
      for (int i = 0; i < *count; ++i) repeated.insert(repeated.end(), items.begin(), items.end());
      return repeated;
    }
    return items;
  }
  std::optional<int> read_number() {
    skip_space();
    size_t start = position_;
    while (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_]))) ++position_;
    if (start == position_ || position_ - start > 6) return std::nullopt;
    return std::stoi(text_.substr(start, position_ - start));
  }
  bool accept(char c) {
    skip_space();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  void skip_space() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) ++position_;
  }

  const std::string& text_;
  size_t position_ = 0;
};

/// First and last layer kept; interior runs collapsed and dropped when equal to a kept neighbour.
std::vector<int> compress_chunk(const std::vector<int>& chunk, int kept_per_chunk) {
  if (chunk.size() <= 2) return chunk;
  std::vector<int> interior;
  for (size_t i = 1; i + 1 < chunk.size(); ++i)
    if (interior.empty() || interior.back() != chunk[i]) interior.push_back(chunk[i]);
  if (!interior.empty() && interior.front() == chunk.front()) interior.erase(interior.begin());
  if (!interior.empty() && interior.back() == chunk.back()) interior.pop_back();
  std::vector<int> out{chunk.front()};
  out.insert(out.end(), interior.begin(), interior.end());
  out.push_back(chunk.back());
  const size_t floor = std::min(chunk.size(), static_cast<size_t>(std::max(kept_per_chunk, 1)));
  while (out.size() < floor) out.insert(out.end() - 1, out.back());
  return out;
}

/// Pads a chunk to `size` layers with copies of its last layer (identical work).
void pad_chunk(std::vector<int>& chunk, size_t size) {
  while (chunk.size() < size) chunk.insert(chunk.end() - 1, chunk.back());
}

}  // namespace

std::optional<std::vector<int>> parse_layer_list(const std::string& text) {
  if (text.find('[') == std::string::npos) return std::nullopt;
  return ListReader(text).read();
}

std::string format_layer_list(const std::vector<int>& kinds) {
  std::string out = "(";
  for (size_t i = 0; i < kinds.size();) {
    size_t j = i;
    while (j < kinds.size() && kinds[j] == kinds[i]) ++j;
    if (i > 0) out += "+";
    out += "[" + std::to_string(kinds[i]) + "]*" + std::to_string(j - i);
    i = j;
  }
  return out + ")";
}

util::Result<std::vector<int>> chunk_sizes(const PipelineShape& shape) {
  if (shape.layers <= 0 || shape.pp <= 0 || shape.virtual_stages <= 0)
    return util::Error{"layers, PP and virtual stages must be positive"};
  const bool uneven = shape.first_stage_layers || shape.last_stage_layers;
  if (uneven && shape.virtual_stages > 1)
    return util::Error{"uneven pipeline stages with virtual stages: layer placement not modelled"};
  if (!uneven) {
    const int chunks = shape.pp * shape.virtual_stages;
    if (shape.layers % chunks != 0)
      return util::Error{std::to_string(shape.layers) + " layers do not split into " + std::to_string(chunks) +
                         " equal chunks"};
    return std::vector<int>(chunks, shape.layers / chunks);
  }
  int middle_stages = shape.pp - (shape.first_stage_layers ? 1 : 0) - (shape.last_stage_layers ? 1 : 0);
  int middle_layers = shape.layers - shape.first_stage_layers.value_or(0) - shape.last_stage_layers.value_or(0);
  if (middle_stages < 0 || middle_layers < 0 || (middle_stages == 0) != (middle_layers == 0) ||
      (middle_stages > 0 && middle_layers % middle_stages != 0))
    return util::Error{"first/last stage layers do not leave an even split for the middle stages"};
  std::vector<int> out;
  if (shape.first_stage_layers) out.push_back(*shape.first_stage_layers);
  for (int i = 0; i < middle_stages; ++i) out.push_back(middle_layers / middle_stages);
  if (shape.last_stage_layers) out.push_back(*shape.last_stage_layers);
  return out;
}

util::Result<LayerShrink> shrink_layers(const std::vector<int>& kinds, const PipelineShape& shape,
                                        int kept_per_chunk) {
  if (static_cast<int>(kinds.size()) != shape.layers)
    return util::Error{"layer pattern has " + std::to_string(kinds.size()) + " entries for " +
                       std::to_string(shape.layers) + " layers"};
  util::Result<std::vector<int>> sizes = chunk_sizes(shape);
  if (!sizes) return sizes.error();
  std::vector<std::vector<int>> chunks;
  size_t offset = 0;
  for (int size : *sizes) {
    std::vector<int> chunk(kinds.begin() + offset, kinds.begin() + offset + size);
    offset += size;
    chunks.push_back(compress_chunk(chunk, kept_per_chunk));
  }
  // Chunks that Megatron requires to be equal: all of them, or all but an explicit first/last stage.
  const size_t begin = shape.first_stage_layers ? 1 : 0;
  const size_t end = chunks.size() - (shape.last_stage_layers ? 1 : 0);
  size_t equal_size = 0;
  for (size_t i = begin; i < end; ++i) equal_size = std::max(equal_size, chunks[i].size());
  for (size_t i = begin; i < end; ++i) pad_chunk(chunks[i], equal_size);

  LayerShrink out;
  out.shape = shape;
  out.layers_per_chunk = static_cast<int>(equal_size);
  for (const auto& chunk : chunks) {
    out.kinds.insert(out.kinds.end(), chunk.begin(), chunk.end());
    out.chunks.push_back(static_cast<int>(chunk.size()));
  }
  out.shape.layers = static_cast<int>(out.kinds.size());
  if (shape.first_stage_layers) out.shape.first_stage_layers = out.chunks.front();
  if (shape.last_stage_layers) out.shape.last_stage_layers = out.chunks.back();
  return out;
}

}  // namespace fastci::planner::workload
