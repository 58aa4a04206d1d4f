#include "planner/plan.h"

#include "planner/selection_drivers.h"

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
  if (!widened()) return "every test is selected: " + describe_drivers(selection);
  const Widening& first = changes.widenings.front();
  std::string why = first.file + ": " + first.reason;
  if (changes.widenings.size() > 1) why += " (and " + std::to_string(changes.widenings.size() - 1) + " more widenings)";
  return why;
}

std::string Plan::why_most_tests() const {
  const std::size_t total = tests_total(), chosen = selection.selected.size();
  // Four in five or more: the plan no longer saves what selection is for, and must say what caused it.
  if (total < kMostTestsAtLeast || chosen * 5 < total * 4 || !why_every_test().empty()) return {};
  return std::to_string(chosen) + " of " + std::to_string(total) + " tests are selected: " +
         describe_drivers(selection);
}

std::vector<std::string> CollectionCheck::command() const {
  std::vector<std::string> out = {"python", "-m", "pytest", "--collect-only", "-q"};
  out.insert(out.end(), files.begin(), files.end());
  return out;
}

}  // namespace fastci::planner
