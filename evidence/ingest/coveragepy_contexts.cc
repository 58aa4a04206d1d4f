#include "evidence/ingest/coveragepy_contexts.h"

namespace fastci::evidence {

ContextTest test_of_context(std::string_view context) {
  ContextTest result;
  std::string_view name = context;
  std::size_t bar = context.rfind('|');
  if (bar != std::string_view::npos) {
    std::string_view phase = context.substr(bar + 1);
    if (phase == "setup" || phase == "run" || phase == "teardown") {
      result.phase = std::string(phase);
      name = context.substr(0, bar);
    }
  }
  result.test_id = std::string(name);
  result.node_id = name.find("::") != std::string_view::npos;
  return result;
}

}  // namespace fastci::evidence
