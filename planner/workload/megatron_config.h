#pragma once
/// Megatron-LM functional tests: model_config.yaml (MODEL_ARGS, TEST_TYPE, MODE, ENV_VARS) and the CI
/// recipes that give each test case its nodes, GPUs and repeats, read into TestWorkloads.

#include <map>
#include <string>
#include <vector>

#include "planner/workload/catalogue.h"
#include "planner/workload/workload.h"
#include "util/result.h"

namespace fastci::planner::workload {

/// How the functional-test runner treats test types (data/megatron.toml [runner]).
struct MegatronRunnerRules {
  std::vector<std::string> recorded_checkpoint_test_types;
  std::vector<std::string> resume_at_half_test_types;
  std::vector<std::string> iteration_shrink_modes;
  std::vector<std::string> iteration_shrink_test_types;
  std::vector<std::string> checkpoint_loading_flags;
  std::vector<std::string> checkpoint_placeholders;
  std::vector<std::string> layer_layout_flags;
  std::vector<std::string> iteration_schedule_flags;
  std::string skip_comparison_env = "SKIP_PYTEST";
  int default_gpus_per_node = 8;  ///< processes per node when a recipe's script does not set GPUS_PER_NODE
};

/// Reads data/megatron.toml.
util::Result<MegatronRunnerRules> load_megatron_rules(const std::string& path);

/// Where and how often CI runs one test case (a recipe's spec with its products entry).
struct RecipeEntry {
  std::string recipe;  ///< path of the recipe file
  std::string model;   ///< spec.model: the test_cases/<model> folder
  int nodes = 1;
  int gpus_per_node = 0;  ///< processes per node the script launches (GPUS_PER_NODE), not just spec.gpus
  std::string gpus_per_node_source;
  int repeats = 1;     ///< n_repeat (product entry overrides spec)
  std::vector<std::string> platforms;
};

/// Every recipe under recipes/, indexed by (model, test case).
class RecipeIndex {
 public:
  /// Reads every *.yaml under `recipes_dir`; a file that does not parse is an error naming it.
  static util::Result<RecipeIndex> load(const std::string& recipes_dir, int default_gpus_per_node = 8);
  /// The entry CI uses for a test case: an H100 recipe first, then any other; nullptr when not scheduled.
  const RecipeEntry* find(const std::string& model, const std::string& test_case) const;
  /// The spec of the model's H100 recipe (for test cases no recipe schedules), or nullptr.
  const RecipeEntry* model_default(const std::string& model) const;
  size_t size() const { return entries_.size(); }

 private:
  std::multimap<std::pair<std::string, std::string>, RecipeEntry> entries_;
  std::map<std::string, RecipeEntry> defaults_;
};

/// Reads one test_cases/<model>/<case>/model_config.yaml into a TestWorkload (id "<model>/<case>").
util::Result<TestWorkload> read_megatron_test(const std::string& model_config_path, const RecipeIndex& recipes,
                                              const Catalogue& catalogue, const MegatronRunnerRules& rules);

/// All test cases under `<megatron_dir>/test_cases`, sorted by id, with family-varied knobs filled in.
struct MegatronSuite {
  std::vector<TestWorkload> tests;
  std::vector<util::Error> problems;  ///< files that could not be read (the rest are still returned)
};
util::Result<MegatronSuite> read_megatron_suite(const std::string& megatron_dir, const Catalogue& catalogue,
                                                const MegatronRunnerRules& rules);

/// Median `iteration-time` (seconds per step, steps after the first) of each golden_values_*.json in a
/// test case folder: file name -> seconds.
std::map<std::string, double> read_golden_step_times(const std::string& case_dir);

}  // namespace fastci::planner::workload
