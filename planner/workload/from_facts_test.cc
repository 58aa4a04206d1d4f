#include "planner/workload/from_facts.h"

#include <gtest/gtest.h>

namespace fastci::planner::workload {
namespace {

frontend::Test parametrized(const std::string& id, const std::string& seq, const std::string& layers) {
  frontend::Test test;
  test.id = id;
  test.symbol = "py:tests.unit.test_attention.test_forward";
  test.file = "tests/unit/test_attention.py";
  test.gpus = 2;
  test.knobs = {{"seq_len", seq, frontend::KnobOrigin::parametrize, test.file, 10},
                {"num_layers", layers, frontend::KnobOrigin::keyword_argument, test.file, 20}};
  return test;
}

TEST(FromFacts, ParametrizeAxesAreInScopeAndKwargsAreCandidates) {
  auto catalogue = Catalogue::load(std::string(FASTCI_WORKLOAD_DATA_DIR) + "/knobs.toml");
  ASSERT_TRUE(catalogue.ok());
  auto workloads = workloads_from_facts({parametrized("test_attention.py::test_forward[128]", "128", "4"),
                                         parametrized("test_attention.py::test_forward[4096]", "4096", "4")},
                                        *catalogue);
  ASSERT_EQ(workloads.size(), 2u);
  EXPECT_EQ(workloads[0].knobs[0].name, "seq_length");
  EXPECT_EQ(workloads[0].knobs[1].name, "layers");
  EXPECT_EQ(workloads[0].knobs[1].line, 20);
  EXPECT_EQ(workloads[0].varied_scope, (std::set<std::string>{"seq_length"}));
  EXPECT_EQ(workloads[1].gpus, 2);
  auto single = workloads_from_facts({parametrized("test_attention.py::test_forward[128]", "128", "4")}, *catalogue);
  EXPECT_TRUE(single[0].varied_scope.empty());
}

}  // namespace
}  // namespace fastci::planner::workload
