#pragma once
// A one-file edit that changes nothing the linker reads but line numbers and body hashes (a
// condition, an operator, a constant of another type than int or str, comments, blank lines):
// the tree's linked facts are the neighbour's with that file's lines moved, no link needed.

#include <map>
#include <optional>
#include <string>

#include "frontend/python/module_record.h"

namespace fastci::frontend::python {

/// Each old line of a file to its new line: one increasing map (0 stays 0).
using LineMap = std::map<int, int>;

/// Where two records of one file differ only in line numbers and symbol hashes, the map from the
/// lines `before` names to the lines `after` names; none where anything else differs, where one
/// old line would move to two new ones, or where the order of lines would change.
/// `reads`: what linking the tree may read literals' values for (LinkedTree::constant_reads); the
/// values of the other int and str literals ("#i:1") may differ too.
std::optional<LineMap> moved_lines(const ModuleRecord& before, const ModuleRecord& after,
                                   const ConstantReads* reads = nullptr);

/// Makes `tree` (linked with `before` in place of `after`) the tree linked with `after`: the
/// file's own facts are `after`'s, and every line of that file any linked fact names is moved.
/// False (and `tree` unusable) where a linked fact names a line of that file the map does not
/// hold, or the file declares native extensions: link instead.
bool move_linked_lines(LinkedTree& tree, const ModuleRecord& after, const LineMap& lines);

}  // namespace fastci::frontend::python
