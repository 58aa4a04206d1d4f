// Runs the CUDA fixture programs under LD_PRELOAD=libfastci_launch.so and checks the evidence they
// leave. No GPU is needed: the runtime fails each launch (error 35 or 100) after the hooks saw it.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "cuda/fixture_runner.h"

namespace fastci::cuda {
namespace {

using testing::make_temporary_directory;
using testing::read_evidence;
using testing::run_program;

/// One kernel line reduced to what the fixtures vary.
struct Launch {
  std::string test, name, grid, block;
  std::uint64_t shared_memory;
  std::vector<std::string> template_arguments;
  std::uint64_t count;
  bool operator<(const Launch& other) const {
    return std::tie(test, name, grid, block, shared_memory) <
           std::tie(other.test, other.name, other.grid, other.block, other.shared_memory);
  }
};

struct Evidence {
  testing::ProgramRun run;
  nlohmann::json run_line;
  std::vector<Launch> launches;  // sorted
};

Evidence run_under_interposer(const std::string& program, std::vector<std::string> arguments = {},
                              std::map<std::string, std::string> environment = {}) {
  std::string directory = make_temporary_directory();
  environment["LD_PRELOAD"] = FASTCI_LAUNCH_LIBRARY;
  environment["FASTCI_EVIDENCE_DIR"] = directory + "/evidence";
  Evidence evidence;
  evidence.run = run_program(program, arguments, environment);
  std::vector<nlohmann::json> lines = read_evidence(directory + "/evidence", "fastci-launch-");
  EXPECT_FALSE(lines.empty()) << evidence.run.output;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i]["type"] == "run") {
      EXPECT_EQ(i, 0u) << "the run line comes first";
      evidence.run_line = lines[i];
      continue;
    }
    EXPECT_EQ(lines[i]["type"], "kernel");
    evidence.launches.push_back({lines[i]["test"], lines[i]["name"], lines[i]["grid"], lines[i]["block"],
                                 lines[i]["shared_memory"], lines[i]["template_arguments"], lines[i]["count"]});
  }
  std::sort(evidence.launches.begin(), evidence.launches.end());
  return evidence;
}

std::string program(const char* name) { return std::string(FASTCI_FIXTURE_DIR) + "/fastci_fixture_" + name; }

void expect_launches(const std::vector<Launch>& actual, std::vector<Launch> expected) {
  std::sort(expected.begin(), expected.end());
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].name + " " + expected[i].grid);
    EXPECT_EQ(actual[i].test, expected[i].test);
    EXPECT_EQ(actual[i].name, expected[i].name);
    EXPECT_EQ(actual[i].grid, expected[i].grid);
    EXPECT_EQ(actual[i].block, expected[i].block);
    EXPECT_EQ(actual[i].shared_memory, expected[i].shared_memory);
    EXPECT_EQ(actual[i].template_arguments, expected[i].template_arguments);
    EXPECT_EQ(actual[i].count, expected[i].count);
  }
}

TEST(LaunchInterposer, TemplatedTripleChevronLaunches) {
  Evidence evidence = run_under_interposer(program("templated_launches"));
  EXPECT_EQ(evidence.run.exit_code, 0) << evidence.run.output;
  expect_launches(evidence.launches,
                  {
                      {"", "void fixture::axpy<float, 4>(float, float const*, float*, int)", "64,1,1", "256,1,1", 0,
                       {"float", "4"}, 3},
                      {"", "void fixture::axpy<double, 1>(double, double const*, double*, int)", "8,2,1", "128,1,1",
                       0, {"double", "1"}, 1},
                      {"", "void fixture::elementwise<float, fixture::Relu>(float*, int, fixture::Relu)", "16,1,1",
                       "32,4,2", 0, {"float", "fixture::Relu"}, 1},
                      {"", "void row_sum<float>(float const*, float*, int)", "128,1,1", "64,1,1", 64 * 4, {"float"}, 2},
                      {"", "void row_sum<double>(double const*, double*, int)", "32,1,4", "256,1,1", 256 * 8,
                       {"double"}, 1},
                      {"", "plain_kernel(int*)", "1,1,1", "1,1,1", 0, {}, 1},
                  });
  const nlohmann::json& environment = evidence.run_line["environment"];
  EXPECT_EQ(evidence.run_line["schema"], 1);
  EXPECT_EQ(evidence.run_line["collector"], "libfastci_launch 0.1");
  EXPECT_EQ(environment["registered_kernels"], "6");
  EXPECT_EQ(environment["configured_launches"], "9");
  EXPECT_EQ(environment["recorded_launches"], "9");
}

TEST(LaunchInterposer, ReturnValuesAndOutputUnchanged) {
  testing::ProgramRun plain = run_program(program("templated_launches"), {}, {});
  Evidence interposed = run_under_interposer(program("templated_launches"));
  EXPECT_EQ(plain.exit_code, interposed.run.exit_code);
  EXPECT_EQ(plain.output, interposed.run.output);
  // Every launch was attempted and failed for lack of a device, not skipped.
  EXPECT_NE(plain.output.find("plain_kernel: "), std::string::npos) << plain.output;
}

TEST(LaunchInterposer, ExplicitRuntimeApiLaunches) {
  Evidence evidence = run_under_interposer(program("explicit_launch"));
  EXPECT_EQ(evidence.run.exit_code, 0) << evidence.run.output;
  expect_launches(evidence.launches, {
                                         {"", "void gather<8>(int const*, float*)", "10,2,1", "96,1,1", 512, {"8"}, 2},
                                         {"", "bias_add(float*, float)", "7,3,2", "32,8,1", 1024, {}, 1},
                                     });
  EXPECT_EQ(evidence.run_line["environment"]["configured_launches"], "0");  // no <<<>>> here
}

TEST(LaunchInterposer, DriverApiLaunchNamedByFunctionPointerWithoutDriver) {
  Evidence evidence =
      run_under_interposer(program("driver_launch"), {}, {{"LD_LIBRARY_PATH", FASTCI_DRIVER_STUB_DIR}});
  EXPECT_EQ(evidence.run.exit_code, 0) << evidence.run.output;
  expect_launches(evidence.launches, {{"", "CUfunction 0x5eed0", "12,1,1", "128,1,1", 2048, {}, 3}});
}

TEST(LaunchInterposer, ModuleLoadedWithRtldLocalLikeAnExtension) {
  // The module's libcudart is invisible to dlsym(RTLD_NEXT); the hooks must still find it.
  Evidence evidence = run_under_interposer(program("dlopen_launch"), {FASTCI_KERNELS_MODULE});
  EXPECT_EQ(evidence.run.exit_code, 0) << evidence.run.output;
  EXPECT_EQ(evidence.run.output.find("not found"), std::string::npos) << evidence.run.output;
  expect_launches(evidence.launches,
                  {
                      {"", "void transpose_tile<float, 32u>(float const*, float*)", "4,4,1", "32,32,1", 0,
                       {"float", "32u"}, 1},
                      {"", "void transpose_tile<short, 16u>(short const*, short*)", "8,8,1", "16,16,1", 1024,
                       {"short", "16u"}, 1},
                  });
  testing::ProgramRun plain = run_program(program("dlopen_launch"), {FASTCI_KERNELS_MODULE}, {});
  EXPECT_EQ(plain.output, evidence.run.output);
}

TEST(LaunchInterposer, ForkedChildWritesOnlyItsOwnLaunchesEvenAfterUnderscoreExit) {
  std::string directory = make_temporary_directory();
  testing::ProgramRun run = run_program(program("fork_launch"), {},
                                        {{"LD_PRELOAD", FASTCI_LAUNCH_LIBRARY}, {"FASTCI_EVIDENCE_DIR", directory}});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  std::vector<std::string> files = testing::list_directory(directory);
  ASSERT_EQ(files.size(), 2u) << run.output;  // one per process
  std::map<std::string, std::uint64_t> counts;
  for (const std::string& file : files) {
    std::vector<nlohmann::json> lines = read_evidence(directory, file);
    std::string kernels;
    for (const auto& line : lines) {
      if (line["type"] != "kernel") continue;
      kernels += line["name"].get<std::string>() + "x" + std::to_string(line["count"].get<int>()) + ";";
    }
    ++counts[kernels];
  }
  EXPECT_EQ(counts["void phase_kernel<0>()x1;void phase_kernel<2>()x1;"], 1u);
  EXPECT_EQ(counts["void phase_kernel<1>()x2;"], 1u);
}

std::vector<Launch> expected_switching_launches() {
  return {
      {"tests/test_ops.py::test_add[float32]", "void step<float>(float*)", "1,1,1", "32,1,1", 0, {"float"}, 1},
      {"tests/test_ops.py::test_add[bfloat16]", "void step<float>(float*)", "2,1,1", "64,1,1", 0, {"float"}, 2},
      {"tests/test_model.py::TestGPT::test_forward", "void step<float>(float*)", "3,1,1", "96,1,1", 0, {"float"}, 3},
      {"", "void step<double>(double*)", "1,1,1", "1,1,1", 0, {"double"}, 1},
  };
}

TEST(LaunchInterposer, TestAttributionFollowsTheFileCheckedAtEveryLaunch) {
  std::string directory = make_temporary_directory();
  Evidence evidence = run_under_interposer(
      program("test_switching"), {"0"},
      {{"FASTCI_CURRENT_TEST_FILE", directory + "/current-test"}, {"FASTCI_TEST_POLL_MS", "0"}});
  EXPECT_EQ(evidence.run.exit_code, 0) << evidence.run.output;
  expect_launches(evidence.launches, expected_switching_launches());
}

TEST(LaunchInterposer, TestAttributionWithDefaultPollInterval) {
  // The fixture waits 20 ms after each switch, longer than the default 1 ms poll interval.
  std::string directory = make_temporary_directory();
  Evidence evidence = run_under_interposer(program("test_switching"), {"20"},
                                           {{"FASTCI_CURRENT_TEST_FILE", directory + "/current-test"}});
  EXPECT_EQ(evidence.run.exit_code, 0) << evidence.run.output;
  expect_launches(evidence.launches, expected_switching_launches());
}

TEST(LaunchInterposer, FixedTestFromEnvironment) {
  Evidence evidence = run_under_interposer(program("explicit_launch"), {},
                                           {{"FASTCI_CURRENT_TEST", "tests/unit/test_gather.py::test_width[8]"}});
  ASSERT_EQ(evidence.launches.size(), 2u);
  for (const Launch& launch : evidence.launches) EXPECT_EQ(launch.test, "tests/unit/test_gather.py::test_width[8]");
}

TEST(LaunchInterposer, WithoutEvidenceDirectoryWritesNothingAndSaysSo) {
  testing::ProgramRun run =
      run_program(program("templated_launches"), {}, {{"LD_PRELOAD", FASTCI_LAUNCH_LIBRARY}, {"FASTCI_EVIDENCE_DIR", ""}});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.output.find("FASTCI_EVIDENCE_DIR is not set"), std::string::npos) << run.output;
}

TEST(LaunchInterposer, ProgramsWithoutCudaLeaveNoFile) {
  std::string directory = make_temporary_directory();
  testing::ProgramRun run = run_program("/bin/sh", {"-c", "exit 3"},
                                        {{"LD_PRELOAD", FASTCI_LAUNCH_LIBRARY}, {"FASTCI_EVIDENCE_DIR", directory}});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_TRUE(testing::list_directory(directory).empty());
}

TEST(LaunchInterposer, UnwritableDirectoryIsReportedNotFatal) {
  testing::ProgramRun run = run_program(program("templated_launches"), {},
                                        {{"LD_PRELOAD", FASTCI_LAUNCH_LIBRARY},
                                         {"FASTCI_EVIDENCE_DIR", "/proc/fastci-cannot-exist"}});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.output.find("fastci launch: /proc/fastci-cannot-exist/fastci-launch-"), std::string::npos)
      << run.output;
}

}  // namespace
}  // namespace fastci::cuda
