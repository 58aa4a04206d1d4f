#pragma once
/// Changed C/C++/CUDA headers that no parsed translation unit read at head: where an include Clang
/// could not resolve may name one, that unit counts as changed; where none does, no compiled code
/// reads the header and the plan says so instead of running every test.

#include <vector>

#include "frontend/facts.h"
#include "planner/change_set.h"

namespace fastci::planner {

/// Replaces each `kNativeWithoutFacts` widening of a header with what `units` (the head's
/// translation units, with their diagnostics) show about it.
void place_unread_headers(const std::vector<const frontend::FileFacts*>& units, ChangeSet& changes);

}  // namespace fastci::planner
