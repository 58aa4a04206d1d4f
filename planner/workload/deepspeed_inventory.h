#pragma once
/// DeepSpeed unit tests as workloads: node ids with their world_size (the GPU count DistributedTest
/// launches), read from an inventory JSONL (see /work/shared/data/deepspeed/README.md).

#include <string>
#include <vector>

#include "planner/workload/catalogue.h"
#include "planner/workload/workload.h"
#include "util/result.h"

namespace fastci::planner::workload {

/// One TestWorkload per node id; a list-valued world_size (the test runs once per size) becomes one
/// workload per size with world_size in the varied scope. Bad lines are errors naming file and line.
util::Result<std::vector<TestWorkload>> read_deepspeed_inventory(const std::string& path, const Catalogue& catalogue);

}  // namespace fastci::planner::workload
