#pragma once
/// A test's recorded runs as the risk model's history: per run, whether it failed, whether the
/// commits since its previous run changed code it reaches (the difference between a code failure
/// and the environment's), and whether they touched a file the current change touches (co-failure).

#include <set>
#include <string>
#include <vector>

#include "planner/failure_class.h"
#include "planner/risk.h"
#include "util/result.h"

namespace fastci::planner {

/// History points of one test, oldest first, from its passed and failed runs. `changed_files` are
/// the files of the change being planned; `reached` reads the commits between runs from git. The
/// first run has no previous one: its code counts as changed and it touched no changed file.
util::Result<std::vector<HistoryPoint>> history_points(const std::string& test_id, const std::vector<OutcomeAt>& runs,
                                                       const std::set<std::string>& changed_files,
                                                       ReachedCode& reached);

}  // namespace fastci::planner
