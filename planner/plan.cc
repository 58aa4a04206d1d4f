#include "planner/plan.h"

namespace fastci::planner {

std::vector<std::string> test_command(const frontend::Test& test) {
  return {"python", "-m", "pytest", test.id};
}

std::vector<std::string> CollectionCheck::command() const {
  std::vector<std::string> out = {"python", "-m", "pytest", "--collect-only", "-q"};
  out.insert(out.end(), files.begin(), files.end());
  return out;
}

}  // namespace fastci::planner
