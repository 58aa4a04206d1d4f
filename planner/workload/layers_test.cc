#include "planner/workload/layers.h"

#include <gtest/gtest.h>

namespace fastci::planner::workload {
namespace {

TEST(Layers, ParsesMegatronLayerLists) {
  EXPECT_EQ(parse_layer_list("([0]*3+[1]*2)"), (std::vector<int>{0, 0, 0, 1, 1}));
  EXPECT_EQ(parse_layer_list("[0,1, 1]"), (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(parse_layer_list("[1]*3"), (std::vector<int>{1, 1, 1}));
  EXPECT_FALSE(parse_layer_list("2").has_value());
  EXPECT_FALSE(parse_layer_list("${PATTERN}").has_value());
  EXPECT_FALSE(parse_layer_list("([0]*3+").has_value());
  EXPECT_EQ(format_layer_list({0, 0, 1, 1, 1}), "([0]*2+[1]*3)");
  EXPECT_EQ(parse_layer_list(format_layer_list({1, 0, 1})), (std::vector<int>{1, 0, 1}));
}

TEST(Layers, ChunkSizesFollowMegatronsSplit) {
  EXPECT_EQ(chunk_sizes({12, 2, 1, {}, {}}).value(), (std::vector<int>{6, 6}));
  EXPECT_EQ(chunk_sizes({16, 4, 2, {}, {}}).value(), (std::vector<int>(8, 2)));
  EXPECT_EQ(chunk_sizes({12, 4, 1, 2, 2}).value(), (std::vector<int>{2, 4, 4, 2}));
  EXPECT_FALSE(chunk_sizes({10, 4, 1, {}, {}}).ok());
  EXPECT_FALSE(chunk_sizes({11, 4, 1, 2, 2}).ok());
  EXPECT_FALSE(chunk_sizes({12, 4, 2, 2, {}}).ok());  // uneven stages with VPP: not modelled, kept
}

TEST(Layers, HomogeneousChunksKeepFirstAndLast) {
  auto shrunk = shrink_layers(std::vector<int>(12, 0), {12, 2, 1, {}, {}}, 2);
  ASSERT_TRUE(shrunk.ok());
  EXPECT_EQ(shrunk->shape.layers, 4);
  EXPECT_EQ(shrunk->chunks, (std::vector<int>{2, 2}));
  auto single = shrink_layers(std::vector<int>(24, 0), {24, 1, 1, {}, {}}, 2);
  EXPECT_EQ(single->shape.layers, 2);
  // Chunks of one layer are already minimal.
  auto minimal = shrink_layers(std::vector<int>(12, 0), {12, 4, 3, {}, {}}, 2);
  EXPECT_EQ(minimal->shape.layers, 12);
}

TEST(Layers, MixedKindsKeepEachTransitionPerChunk) {
  // DeepSeek-style: 3 dense then 5 MoE layers on one stage -> one dense, one MoE.
  auto one_stage = shrink_layers({0, 0, 0, 1, 1, 1, 1, 1}, {8, 1, 1, {}, {}}, 2);
  ASSERT_TRUE(one_stage.ok());
  EXPECT_EQ(one_stage->kinds, (std::vector<int>{0, 1}));
  // Interior runs collapse to one layer of each kind between the kept first and last.
  auto runs = shrink_layers({1, 0, 0, 0, 1, 1, 1, 0}, {8, 1, 1, {}, {}}, 2);
  EXPECT_EQ(runs->kinds, (std::vector<int>{1, 0, 1, 0}));
  // Strictly alternating kinds have no identical neighbours: nothing repeats, nothing is dropped.
  auto alternating = shrink_layers({1, 0, 1, 0, 1, 0}, {6, 1, 1, {}, {}}, 2);
  EXPECT_EQ(alternating->kinds, (std::vector<int>{1, 0, 1, 0, 1, 0}));
  // Two stages: [0 0 0 1 1 1 1] [1 1 1 1 1 1 1]: stage one keeps 0 and 1, stage two 1 and 1.
  std::vector<int> kinds{0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  auto two = shrink_layers(kinds, {14, 2, 1, {}, {}}, 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->kinds, (std::vector<int>{0, 1, 1, 1}));
  EXPECT_EQ(two->chunks, (std::vector<int>{2, 2}));
}

TEST(Layers, ChunksThatMustBeEqualArePadded) {
  // Stage one [0 1 0 1] compresses to 4, stage two [1 1 1 1] to 2: padded to 4 with copies of its last layer.
  auto padded = shrink_layers({0, 1, 0, 1, 1, 1, 1, 1}, {8, 2, 1, {}, {}}, 2);
  ASSERT_TRUE(padded.ok());
  EXPECT_EQ(padded->chunks, (std::vector<int>{4, 4}));
  EXPECT_EQ(padded->shape.layers, 8);
}

TEST(Layers, UnevenStagesShrinkIndependently) {
  auto shrunk = shrink_layers(std::vector<int>(16, 0), {16, 4, 1, 4, 2}, 2);
  ASSERT_TRUE(shrunk.ok());
  EXPECT_EQ(shrunk->chunks, (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(shrunk->shape.first_stage_layers, 2);
  EXPECT_EQ(shrunk->shape.last_stage_layers, 2);
  EXPECT_FALSE(shrink_layers(std::vector<int>(5, 0), {6, 1, 1, {}, {}}, 2).ok());
}

}  // namespace
}  // namespace fastci::planner::workload
