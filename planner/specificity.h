#pragma once
/// How specific a selected test is to the change: of the faults the change may carry, the share
/// this test is placed to catch, against the average selected test's.

#include <vector>

#include "planner/select.h"

namespace fastci::planner {

/// Per selected test (in `selected` order), ln(share / mean share), where a test's share is
/// (1/m) Σ 1/n_s over the changed symbols s its reasons name, m the changed symbols any selected
/// test reaches and n_s the selected tests that reach s. The model: a fault lies in one changed
/// symbol, each as likely, and a few of the tests reaching that symbol catch it, so a test that
/// reaches a symbol few others reach is likelier to be one of them. 0 for every test of a plan
/// whose tests all reach the same symbols; reasons without a changed symbol (its own file changed,
/// always-run, a widening) count together as one symbol.
std::vector<double> specificities(const std::vector<SelectedTest>& selected);

}  // namespace fastci::planner
