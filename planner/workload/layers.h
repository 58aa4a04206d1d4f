#pragma once
/// Layer sequences of a model split into pipeline chunks, and the shrink that keeps, in every chunk,
/// its first and last layer and one layer of each distinct kind in between.

#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace fastci::planner::workload {

/// Parses a Megatron layer list: "([0]*3+[1]*11)", "[0,1,1]", "[1]*4". Nothing for other text ("1", "${X}").
std::optional<std::vector<int>> parse_layer_list(const std::string& text);
/// Writes a layer list in Megatron's run-length form: "([0]*1+[1]*3)".
std::string format_layer_list(const std::vector<int>& kinds);

/// How a layer stack is split over pipeline ranks.
struct PipelineShape {
  int layers = 0;
  int pp = 1;
  int virtual_stages = 1;                 ///< model chunks per pipeline rank (VPP)
  std::optional<int> first_stage_layers;  ///< uneven pipeline: layers of the first stage
  std::optional<int> last_stage_layers;   ///< uneven pipeline: layers of the last stage
};

/// Layer counts of the model chunks in layer order; an error when the shape does not split evenly.
util::Result<std::vector<int>> chunk_sizes(const PipelineShape& shape);

/// A shrunk layer stack.
struct LayerShrink {
  std::vector<int> kinds;        ///< layer kind per layer after shrinking (0 dense, 1 MoE, ...)
  std::vector<int> chunks;       ///< layers per chunk after shrinking
  PipelineShape shape;           ///< the shrunk shape (layers, first/last stage sizes)
  int layers_per_chunk = 0;      ///< of the evenly split chunks (all chunks, or the middle ones)
};

/// Shrinks `kinds` (one entry per layer) split as `shape`: each chunk keeps its first and last layer,
/// interior runs of one kind collapse to one layer and vanish when they equal a kept neighbour; chunks
/// that must be equal are padded with copies of their last layer; no chunk drops below
/// min(its size, kept_per_chunk).
util::Result<LayerShrink> shrink_layers(const std::vector<int>& kinds, const PipelineShape& shape,
                                        int kept_per_chunk);

}  // namespace fastci::planner::workload
