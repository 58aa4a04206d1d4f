#include <gtest/gtest.h>

#include "planner/line_map.h"

namespace fastci::planner {
namespace {

TEST(LineMap, UnchangedRangesShiftByInsertionsAndDeletionsBefore) {
  // Old -> new: 2 lines inserted after old line 3 (new 4-5); old lines 10-12 deleted (after new 11).
  std::vector<std::array<int, 4>> hunks = {{3, 0, 4, 2}, {10, 3, 11, 0}};
  EXPECT_EQ(map_to_old_side(hunks, {1, 3}), (Lines{1, 3}));
  EXPECT_EQ(map_to_old_side(hunks, {6, 9}), (Lines{4, 7}));
  EXPECT_EQ(map_to_old_side(hunks, {12, 20}), (Lines{13, 21}));
}

TEST(LineMap, ChangedLinesInsideAreStale) {
  std::vector<std::array<int, 4>> hunks = {{3, 0, 4, 2}, {10, 3, 11, 0}, {30, 1, 29, 1}};
  EXPECT_FALSE(map_to_old_side(hunks, {3, 4}).has_value());    // inserted line inside
  EXPECT_FALSE(map_to_old_side(hunks, {10, 12}).has_value());  // deletion after new line 11
  EXPECT_FALSE(map_to_old_side(hunks, {29, 29}).has_value());  // replaced line
  EXPECT_TRUE(map_to_old_side(hunks, {11, 11}).has_value());   // deletion right after the range end
}

}  // namespace
}  // namespace fastci::planner
