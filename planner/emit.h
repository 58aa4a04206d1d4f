#pragma once
/// Adapters from a plan to what CI runners take: pytest argument files, a GitHub Actions matrix,
/// a GitLab child pipeline. Test ids are quoted for the shell and YAML, never interpreted.

#include <string>
#include <string_view>
#include <vector>

#include "planner/plan.h"

namespace fastci::planner {

/// Output formats of `fastci-analyze --emit`.
enum class EmitFormat { pytest_args, github_matrix, gitlab_pipeline };

/// Parses "pytest-args", "github-matrix" or "gitlab-pipeline".
util::Result<EmitFormat> emit_format_from_string(std::string_view name);

/// Tests of one parallel CI job.
struct Shard {
  int gpus = 1;
  std::vector<std::string> tests;  ///< in plan order
  double predicted_seconds = 0;
};

/// Splits the ordered tests into at most `shards_per_gpu_class` shards per GPU count: each test,
/// in plan (risk) order, joins the shard of its class with the least predicted time so far (list
/// scheduling in risk order, as schedule_ranked does on the cluster), so that the top-ranked tests
/// start first, one per shard, and a shard runs its tests in plan order.
std::vector<Shard> make_shards(const Plan& plan, int shards_per_gpu_class);

/// The plan in `format`.
std::string emit_plan(const Plan& plan, EmitFormat format, int shards_per_gpu_class = 4);

/// `text` as one single-quoted POSIX shell word.
std::string shell_quote(std::string_view text);

}  // namespace fastci::planner
