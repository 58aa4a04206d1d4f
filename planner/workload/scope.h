#pragma once
/// Validation scope: the knobs a test is meant to validate, which no shrink may touch.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "planner/workload/catalogue.h"
#include "planner/workload/workload.h"

namespace fastci::planner::workload {

/// Knob -> why it is in scope: declared, asserted on, varied by the family, or named in the test id.
std::map<std::string, std::string> detect_scope(const TestWorkload& test, const Catalogue& catalogue);

/// For each test id of a family (sibling configs, parametrizations of one function): the catalogue
/// knobs in which it differs from a sibling that is otherwise identical (all other knobs equal).
std::map<std::string, std::set<std::string>> varied_knobs(const std::vector<TestWorkload>& family,
                                                          const Catalogue& catalogue);

}  // namespace fastci::planner::workload
