// The CUPTI collector on a machine without a driver: subscribing fails, so it must say so once on
// stderr and otherwise leave the program alone (same output, same exit status, no evidence files).
#include <gtest/gtest.h>

#include <string>

#include "cuda/fixture_runner.h"

namespace fastci::cuda {
namespace {

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

std::string without_line_containing(std::string text, const std::string& needle) {
  std::size_t at = text.find(needle);
  if (at == std::string::npos) return text;
  std::size_t end = text.find('\n', at);
  return text.erase(at, end == std::string::npos ? std::string::npos : end + 1 - at);
}

const std::string kProgram = std::string(FASTCI_FIXTURE_DIR) + "/fastci_fixture_templated_launches";

TEST(CuptiCollector, WithoutDriverReportsOnceAndChangesNothing) {
  std::string directory = testing::make_temporary_directory();
  testing::ProgramRun plain = testing::run_program(kProgram, {}, {});
  testing::ProgramRun preloaded = testing::run_program(
      kProgram, {}, {{"LD_PRELOAD", FASTCI_CUPTI_LIBRARY}, {"FASTCI_EVIDENCE_DIR", directory}});
  EXPECT_EQ(preloaded.exit_code, plain.exit_code);
  EXPECT_EQ(count_of(preloaded.output, "fastci cupti: "), 1u) << preloaded.output;
  EXPECT_NE(preloaded.output.find("cuptiSubscribe failed"), std::string::npos) << preloaded.output;
  EXPECT_EQ(without_line_containing(preloaded.output, "fastci cupti: "), plain.output);
  EXPECT_TRUE(testing::list_directory(directory).empty());
}

TEST(CuptiCollector, InjectionPathWithoutDriverIsHarmless) {
  std::string directory = testing::make_temporary_directory();
  testing::ProgramRun plain = testing::run_program(kProgram, {}, {});
  testing::ProgramRun injected = testing::run_program(
      kProgram, {}, {{"CUDA_INJECTION64_PATH", FASTCI_CUPTI_LIBRARY}, {"FASTCI_EVIDENCE_DIR", directory}});
  EXPECT_EQ(injected.exit_code, plain.exit_code);
  EXPECT_LE(count_of(injected.output, "fastci cupti: "), 1u);
  EXPECT_EQ(without_line_containing(injected.output, "fastci cupti: "), plain.output);
  EXPECT_TRUE(testing::list_directory(directory).empty());
}

}  // namespace
}  // namespace fastci::cuda
