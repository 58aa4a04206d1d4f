#pragma once
/// What selected a plan's tests, grouped: the explanation a plan owes when it runs most of them.

#include <cstddef>
#include <string>
#include <vector>

#include "planner/select.h"

namespace fastci::planner {

/// One cause shared by selected tests: the kind of a test's first reason, the changed symbol it
/// leads to and, for name matches, the unresolved read or call it goes through.
struct SelectionDriver {
  SelectionReason::Kind kind = SelectionReason::Kind::static_path;
  std::string changed_symbol;  ///< empty for own-file, always-run and widening reasons
  std::string through;         ///< name matches: "`.update` in f (file:line)"; empty otherwise
  std::size_t tests = 0;       ///< selected tests whose first reason this is
};

/// The causes of a selection, most tests first (ties in a fixed order), at most `limit`. Each test
/// counts once. A test selected by a resolved path counts for the changed symbol that the most such
/// tests reach, among those it reaches (then the most of the rest: a greedy cover of
/// SelectedTest::reaches), others for their first reason: selection adds a resolved path before a
/// name match, so a test counted under a name match is one that only name matches select.
std::vector<SelectionDriver> selection_drivers(const Selection& selection, std::size_t limit = 5);

/// One driver in words: "1453 through `.name` in f (file:line), which may reach m.C.name (a name match)".
std::string describe(const SelectionDriver& driver);

/// The drivers in words, joined by "; ", with how many tests the others account for.
std::string describe_drivers(const Selection& selection, std::size_t limit = 3);

}  // namespace fastci::planner
