#include "planner/plan.h"

namespace fastci::planner {

std::vector<std::string> pytest_arguments(const std::vector<const PlanEntry*>& entries) {
  std::vector<std::string> out;
  for (const auto* e : entries) {
    auto it = e->overrides.find("pytest");
    if (it == e->overrides.end()) continue;
    // The override is an option of fastci's pytest plugin (pip-installed, or on PYTHONPATH).
    if (out.empty()) out = {"-p", "fastci_pytest"};
    out.push_back(it->second);
  }
  // An id that starts like an option or an argument file must not be read as one.
  for (const auto* e : entries) {
    const std::string& id = e->selected.test.id;
    out.push_back(id.starts_with("-") || id.starts_with("@") ? "./" + id : id);
  }
  return out;
}

std::vector<std::string> entry_command(const PlanEntry& entry) {
  std::vector<std::string> out = {"python", "-m", "pytest"};
  for (auto& word : pytest_arguments({&entry})) out.push_back(std::move(word));
  return out;
}

std::string Plan::why_every_test() const {
  if (prioritized.ordered.empty() || prioritized.ordered.size() != tests_total()) return {};
  if (!widened()) return "every test reaches a changed symbol through the call graph or a rule";
  const Widening& first = changes.widenings.front();
  std::string why = first.file + ": " + first.reason;
  if (changes.widenings.size() > 1) why += " (and " + std::to_string(changes.widenings.size() - 1) + " more widenings)";
  return why;
}

std::vector<std::string> CollectionCheck::command() const {
  std::vector<std::string> out = {"python", "-m", "pytest", "--collect-only", "-q"};
  out.insert(out.end(), files.begin(), files.end());
  return out;
}

}  // namespace fastci::planner
