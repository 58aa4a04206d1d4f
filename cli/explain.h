#pragma once
/// `fastci explain TEST_ID`: why a test was selected, pruned or skipped, read from a plan.

#include <nlohmann/json.hpp>
#include <string>

namespace fastci::cli {

/// Human-readable explanation of `test_id` in `plan`; empty when the plan does not mention it.
std::string explain_test(const nlohmann::json& plan, const std::string& test_id);

/// Test ids in the plan containing `fragment`, for "did you mean".
std::vector<std::string> similar_test_ids(const nlohmann::json& plan, const std::string& fragment,
                                          std::size_t limit = 5);

}  // namespace fastci::cli
