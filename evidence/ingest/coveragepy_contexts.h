#pragma once
/// How coverage.py context names map to test ids, shared by the coverage.py SQLite and JSON readers.

#include <string>
#include <string_view>

namespace fastci::evidence {

/// The test a coverage.py context belongs to.
struct ContextTest {
  std::string test_id;  ///< pytest node id, the context as written, or "" for code run outside tests
  std::string phase;    ///< "setup", "run", "teardown", or "" when the context names no phase
  bool node_id = false; ///< whether test_id looks like a pytest node id ("path.py::name")
};

/// Maps "nodeid|run" / "|setup" / "|teardown" (pytest-cov --cov-context=test) to the node id;
/// other contexts (coverage.py dynamic_context = test_function) stay as written; "" stays "".
ContextTest test_of_context(std::string_view context);

}  // namespace fastci::evidence
