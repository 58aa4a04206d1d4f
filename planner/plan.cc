#include "planner/plan.h"

namespace fastci::planner {

std::vector<std::string> test_command(const frontend::Test& test) {
  return {"python", "-m", "pytest", test.id};
}

}  // namespace fastci::planner
