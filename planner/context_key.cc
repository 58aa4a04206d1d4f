#include "planner/context_key.h"

#include "frontend/python/pytest_discovery.h"

namespace fastci::planner {
namespace {

/// Folder names that hold tests and their helpers in the frameworks fastci serves (DeepSpeed
/// tests/unit/common.py, Megatron-LM tests/unit_tests/..., torchtune tests/...).
bool is_test_folder(std::string_view name) {
  return name == "tests" || name == "test" || name == "testing" || name == "unit_tests" ||
         name == "functional_tests";
}

}  // namespace

bool is_framework_frame(std::string_view frame) {
  std::string_view path = frame.substr(0, frame.find("::"));
  if (path.empty() || path.front() == '/' || path.find(':') != std::string_view::npos) return false;
  if (path.find("site-packages/") != std::string_view::npos || path.find("dist-packages/") != std::string_view::npos)
    return false;
  std::string_view name = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  if (name == "conftest.py" || frontend::python::is_test_file(name)) return false;
  for (std::size_t start = 0, slash; (slash = path.find('/', start)) != std::string_view::npos; start = slash + 1) {
    std::string_view folder = path.substr(start, slash - start);
    if (is_test_folder(folder) || folder == "fastci_pytest") return false;
  }
  return true;
}

std::string framework_context_key(const evidence::ExecutionContext& context) {
  evidence::ExecutionContext framework = context;
  framework.callers.clear();
  for (const auto& frame : context.callers)
    if (is_framework_frame(frame)) framework.callers.push_back(frame);
  return framework.key();
}

}  // namespace fastci::planner
