#pragma once
/// The key under which pruning compares two tests' contexts of a changed symbol. The collectors
/// record the whole caller stack, test frames included, so every test would have a context of its
/// own; what says whether two runs of the changed code are equivalent is how the framework reached
/// it (its own frames), with which abstract arguments and which branches it took.

#include <string>
#include <string_view>

#include "evidence/records.h"

namespace fastci::planner {

/// Whether a caller frame ("path/to/file.py::Qualified.name") is the framework's own source: not
/// a test module, a conftest, a helper inside a test folder, or code outside the repository
/// (an absolute path, site-packages, the fastci plugin).
bool is_framework_frame(std::string_view frame);

/// The context's key with the caller stack reduced to the framework's own frames.
std::string framework_context_key(const evidence::ExecutionContext& context);

}  // namespace fastci::planner
