#pragma once
/// Reader for JUnit-style XML test reports as pytest (`--junitxml`, xunit1 and xunit2) and
/// GoogleTest (`--gtest_output=xml`) write them: per test, outcome, duration and failure message.

#include <filesystem>
#include <string>
#include <string_view>

#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// Streams the report (expat, constant memory in the report size) into `sink`, one TestEvidence per
/// <testcase>. Test ids are the runner's: pytest node ids ("unit/comm/test_dist.py::TestDistInit::
/// test_no_init[True]", rebuilt from classname, or from `file` when present) and GoogleTest
/// "Suite.Name". Outcome: <failure> -> failed, <error> -> error (both win over <skipped>), <skipped>
/// -> skipped (xfailed when pytest says pytest.xfail), GoogleTest status="notrun" (DISABLED_) ->
/// skipped, otherwise passed. Malformed XML fails with file:line.
util::Status read_junit(const std::filesystem::path& file, EvidenceSink& sink);

/// Whether the head looks like a JUnit XML report (<testsuites> or <testsuite> root).
bool sniff_junit(std::string_view head, const std::filesystem::path& file);

/// The pytest node id for a JUnit classname ("pkg.test_mod.TestClass") and name ("test_x[1]").
std::string pytest_node_id(std::string_view classname, std::string_view name);

}  // namespace fastci::evidence
