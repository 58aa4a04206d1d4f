#include "planner/replay.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/file.h"

namespace fastci::planner {
namespace {

namespace fs = std::filesystem;

std::vector<RecordedResult> four_tests() {
  return {{"a", "passed", 10, 1}, {"b", "failed", 20, 2}, {"c", "failed", 5, 1}, {"d", "passed", 5, 1}};
}

TEST(ReplayMetrics, WholeOrderOnTwoGpusScoredInStartOrder) {
  auto m = measure_order({"a", "b", "c", "d"}, four_tests(), 2);
  // a 0-10; b needs both GPUs and is reserved for 10; c (0-5) and then d (5-10) backfill the free
  // GPU without delaying it; b 10-30. The schedule starts a, c, d, b: APFD is scored on that order.
  EXPECT_DOUBLE_EQ(m.latency_seconds, 30);
  EXPECT_DOUBLE_EQ(m.gpu_hours, 60.0 / 3600);
  EXPECT_EQ(m.failures_present, 2);
  EXPECT_EQ(m.failures_caught, 2);
  EXPECT_DOUBLE_EQ(*m.time_to_first_failure, 5);
  EXPECT_DOUBLE_EQ(*m.apfd, 0.375);         // ((4 - 2 + 1/2) + (4 - 4 + 1/2)) / (4 x 2)
  EXPECT_DOUBLE_EQ(*m.apfd_cost, 0.46875);  // ((30 - 2.5) + (20 - 10)) / (40 x 2)
}

TEST(ReplayMetrics, FailuresFirstScoreHigherAndMissedFaultsScoreZero) {
  auto first = measure_order({"c", "b"}, four_tests(), 2);
  EXPECT_DOUBLE_EQ(first.latency_seconds, 25);  // c 0-5, b 5-25
  EXPECT_DOUBLE_EQ(*first.time_to_first_failure, 5);
  EXPECT_DOUBLE_EQ(*first.apfd, 0.5);           // (1.5 + 0.5) / (2 x 2)
  EXPECT_DOUBLE_EQ(*first.apfd_cost, 0.65);     // ((25 - 2.5) + (20 - 10)) / (25 x 2)
  auto none = measure_order({"a", "unknown"}, four_tests(), 2);
  EXPECT_EQ(none.unknown_tests, 1u);
  EXPECT_EQ(none.failures_caught, 0);
  EXPECT_FALSE(none.time_to_first_failure);
  EXPECT_DOUBLE_EQ(*none.apfd, 0);
  EXPECT_DOUBLE_EQ(*none.apfd_cost, 0);
  auto quiet = measure_order({"a"}, {{"a", "passed", 1, 1}}, 2);
  EXPECT_FALSE(quiet.apfd);
}

/// The bundled example's router change as a one-commit history in which one router test fails.
fs::path example_history() {
  auto dir = fs::temp_directory_path() / ("fastci-replay-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string make = std::string(FASTCI_SOURCE_DIR) + "/scripts/make_example_repo.sh " + (dir / "repo").string() +
                     " >/dev/null";
  EXPECT_EQ(std::system(make.c_str()), 0);
  const char* ids[] = {
      "tests/unit/test_attention.py::test_attention_output_size[fp32-1]",
      "tests/unit/test_attention.py::test_attention_output_size[fp32-2]",
      "tests/unit/test_attention.py::test_attention_output_size[bf16-1]",
      "tests/unit/test_attention.py::test_attention_output_size[bf16-2]",
      "tests/unit/test_model.py::test_forward_keeps_shape[0]",
      "tests/unit/test_model.py::test_forward_keeps_shape[4]",
      "tests/unit/test_ops.py::test_softmax_sums_to_one[fp32]",
      "tests/unit/test_ops.py::test_softmax_sums_to_one[bf16]",
      "tests/unit/test_ops.py::test_gelu[0.0-0.0]",
      "tests/unit/test_ops.py::test_gelu[1.0-0.841]",
      "tests/unit/test_ops.py::test_layer_norm_is_centered",
      "tests/unit/test_parallel.py::test_split_then_gather_round_trips",
      "tests/unit/test_parallel.py::test_sequence_parallel_scatter",
      "tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[1]",
      "tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[2]",
      "tests/unit/test_router.py::TestTopKRouter::test_weights_normalised",
      "tests/unit/test_smoke.py::test_package_imports",
  };
  std::ofstream out(dir / "history.json");
  out << R"({"format": "fastci-history/1", "repository": "repo", "cluster_gpus": 2,
             "commits": [{"commit": "change", "base": "base", "results": [)";
  for (std::size_t i = 0; i < std::size(ids); ++i) {
    bool fails = std::string(ids[i]).ends_with("test_route_picks_largest[2]");
    out << (i ? "," : "") << "{\"id\": \"" << ids[i] << "\", \"outcome\": \"" << (fails ? "failed" : "passed")
        << "\", \"seconds\": 10, \"gpus\": 1}";
  }
  out << "]}]}\n";
  return dir;
}

TEST(Replay, ExampleHistoryHasKnownMetricsForEveryStrategy) {
  auto dir = example_history();
  auto history = load_history(dir / "history.json");
  ASSERT_TRUE(history.ok()) << history.error().to_string();
  ReplayOptions options;
  options.state_dir = dir / "state";
  auto reports = replay(*history,
                        {ReplayStrategy::run_all, ReplayStrategy::file_level, ReplayStrategy::coverage_only,
                         ReplayStrategy::fastci_select, ReplayStrategy::fastci_prioritize},
                        options);
  ASSERT_TRUE(reports.ok()) << reports.error().to_string();
  ASSERT_EQ(reports->size(), 5u);
  const auto& all = (*reports)[0].rows.at(0).metrics;
  EXPECT_EQ(all.tests_run, 17u);
  EXPECT_DOUBLE_EQ(all.latency_seconds, 90);       // 17 tests of 10 s on 2 GPUs
  EXPECT_DOUBLE_EQ(all.gpu_hours, 170.0 / 3600);
  EXPECT_EQ(all.failures_caught, 1);
  EXPECT_DOUBLE_EQ(*all.time_to_first_failure, 80);  // the 15th test, in the 8th slot pair
  EXPECT_DOUBLE_EQ(*all.apfd, (17 - 15 + 0.5) / 17);
  // Every test module imports minifw, whose __init__ imports the model and the router with it.
  EXPECT_EQ((*reports)[1].rows.at(0).metrics.tests_run, 17u);
  // No evidence store: the coverage-based strategy cannot narrow, and says so.
  EXPECT_EQ((*reports)[2].rows.at(0).metrics.tests_run, 17u);
  EXPECT_NE((*reports)[2].rows.at(0).note.find("no evidence"), std::string::npos);
  for (std::size_t s : {3u, 4u}) {
    const auto& fastci = (*reports)[s].rows.at(0).metrics;
    EXPECT_EQ(fastci.tests_run, 6u);
    EXPECT_DOUBLE_EQ(fastci.latency_seconds, 30);
    EXPECT_DOUBLE_EQ(fastci.gpu_hours, 60.0 / 3600);
    EXPECT_EQ(fastci.failures_caught, 1);
    EXPECT_LE(*fastci.time_to_first_failure, 30);
  }
  auto text = format_replay(*history, *reports);
  EXPECT_NE(text.find("| fastci-select | 6 / 17 |"), std::string::npos) << text;
  fs::remove_all(dir);
}

TEST(Replay, RecordedSelectionsOfAnotherToolReplayUnderItsName) {
  auto dir = example_history();
  // What DeepSpeed's ci/tests_fetcher.py would have written: one test file and one folder.
  std::string text = util::read_file(dir / "history.json").value();
  auto at = text.find("\"results\"");
  // What pytest-testmon ran there: test ids.
  text.insert(at, R"("selections": {"tests-fetcher": {"mode": "selected", "reason": "1 changed file",
                  "targets": ["tests/unit/test_router.py", "tests/unit/sub"]},
                  "pytest-testmon": {"mode": "selected", "reason": "1 test affected",
                  "targets": ["tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[2]"]}}, )");
  std::ofstream(dir / "selected.json") << text;
  auto history = load_history(dir / "selected.json");
  ASSERT_TRUE(history.ok()) << history.error().to_string();
  ReplayOptions options;
  options.state_dir = dir / "state";
  auto reports = replay(*history, {ReplayStrategy::tests_fetcher}, options);
  ASSERT_TRUE(reports.ok()) << reports.error().to_string();
  const auto& row = (*reports)[0].rows.at(0);
  EXPECT_EQ(row.metrics.tests_run, 3u);  // the three router tests
  EXPECT_EQ(row.metrics.failures_caught, 1);
  EXPECT_EQ(replay_strategy_named("tests-fetcher"), ReplayStrategy::tests_fetcher);
  auto testmon = replay(*history, {ReplayStrategy::pytest_testmon}, options);
  ASSERT_TRUE(testmon.ok()) << testmon.error().to_string();
  EXPECT_EQ((*testmon)[0].rows.at(0).metrics.tests_run, 1u);  // a test id selects that test alone
  EXPECT_EQ((*testmon)[0].rows.at(0).metrics.failures_caught, 1);
  EXPECT_EQ(replay_strategy_named("pytest-testmon"), ReplayStrategy::pytest_testmon);

  // Without a recorded selection the strategy cannot say what the tool would have done.
  auto bare = load_history(dir / "history.json");
  ASSERT_TRUE(bare.ok());
  auto missing = replay(*bare, {ReplayStrategy::tests_fetcher}, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("records no tests-fetcher selection"), std::string::npos);
  fs::remove_all(dir);
}

/// The example history with two faults injected into the change's topk_routing, each committed on
/// top of "change": one the recorded run kills (a router test fails), one no test kills.
fs::path mutant_history(const fs::path& dir) {
  std::string git = "git -C " + (dir / "repo").string() + " -c user.name=t -c user.email=t@example.org ";
  std::string router = (dir / "repo/minifw/moe/router.py").string();
  std::string script = git + "checkout -q change && sed -i 's/order\\[:k\\])/order[:k + 1])/' " + router + " && " +
                       git + "commit -qam killed && " + git + "tag mutant-killed && " + git + "checkout -q change && " +
                       "sed -i 's/stable expert order/stable order/' " + router + " && sed -i 's/reverse=True/reverse=bool(1)/' " +
                       router + " && " + git + "commit -qam survived && " + git + "tag mutant-survived && " + git +
                       "checkout -q change";
  EXPECT_EQ(std::system((script + " >/dev/null").c_str()), 0);
  auto text = util::read_file(dir / "history.json");
  if (!text.ok()) {
    ADD_FAILURE() << text.error().to_string();
    return {};
  }
  auto j = nlohmann::json::parse(*text);
  auto killed = j["commits"][0];
  killed["kind"] = "mutant";
  killed["commit"] = "mutant-killed";
  killed["mutant_of"] = "change";
  killed["mutation"] = {{"file", "minifw/moe/router.py"}, {"line", 7}, {"operator", "constant"},
                        {"original", "order[:k]"}, {"replacement", "order[:k + 1]"}};
  killed["killed_by"] = {"tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[1]"};
  for (auto& r : killed["results"])
    if (r["id"] == "tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[1]") r["outcome"] = "failed";
  auto survived = j["commits"][0];
  survived["kind"] = "mutant";
  survived["commit"] = "mutant-survived";
  survived["mutant_of"] = "change";
  j["commits"].push_back(killed);
  j["commits"].push_back(survived);
  std::ofstream(dir / "mutants.json") << j.dump();
  return dir / "mutants.json";
}

TEST(Replay, MutantsAreScoredByTheirKillers) {
  auto dir = example_history();
  auto file = mutant_history(dir);
  auto history = load_history(file);
  ASSERT_TRUE(history.ok()) << history.error().to_string();
  ASSERT_EQ(history->commits.size(), 3u);
  EXPECT_TRUE(history->commits[1].is_mutant());
  EXPECT_EQ(history->commits[1].mutation, "minifw/moe/router.py:7 constant: order[:k] -> order[:k + 1]");
  ReplayOptions options;
  options.state_dir = dir / "state";
  auto reports = replay(*history, {ReplayStrategy::run_all, ReplayStrategy::fastci_select}, options);
  ASSERT_TRUE(reports.ok()) << reports.error().to_string();
  for (const auto& report : *reports) {
    EXPECT_FALSE(report.rows[0].mutant_caught.has_value());  // a real commit
    EXPECT_EQ(report.rows[1].mutant_caught, std::optional<bool>(true));
    EXPECT_FALSE(report.rows[2].mutant_caught.has_value());  // nothing kills it: not scored
  }
  // fastci plans the mutant as the change it rides on: the same 6 tests, the killer among them.
  EXPECT_EQ((*reports)[1].rows[1].metrics.tests_run, 6u);
  // the router test that already failed on the real commit is not the mutant's fault: only the killer counts
  EXPECT_EQ((*reports)[1].rows[1].metrics.failures_caught, 1);
  EXPECT_EQ((*reports)[1].rows[1].metrics.failures_present, 1);
  auto table = format_replay(*history, *reports);
  EXPECT_NE(table.find("Replay of 1 commits"), std::string::npos) << table;
  EXPECT_NE(table.find("2 mutants (1 killed by at least one recorded test)"), std::string::npos) << table;
  EXPECT_NE(table.find("| fastci-select | 1 / 1 | - |"), std::string::npos) << table;
  fs::remove_all(dir);
}

TEST(Replay, AnAuditOfTheSkipsRunsTheEscapesItSamples) {
  // The router change again, but a gelu test fails too: no changed code reaches it, so fastci skips
  // a failing test (an escape). Auditing every skipped test runs it after the plan.
  auto dir = example_history();
  auto j = nlohmann::json::parse(std::ifstream(dir / "history.json"));
  for (auto& r : j["commits"][0]["results"])
    if (r["id"] == "tests/unit/test_ops.py::test_gelu[0.0-0.0]") r["outcome"] = "failed";
  std::ofstream(dir / "escape.json") << j.dump();
  auto history = load_history(dir / "escape.json");
  ASSERT_TRUE(history.ok()) << history.error().to_string();
  ReplayOptions options;
  options.state_dir = dir / "state";
  options.audit_fraction = 1;
  auto reports = replay(*history, {ReplayStrategy::run_all, ReplayStrategy::fastci_select}, options);
  ASSERT_TRUE(reports.ok()) << reports.error().to_string();
  const auto& all = (*reports)[0];
  EXPECT_EQ(all.audit_fraction, 0);  // only fastci's plans are audited
  const auto& row = (*reports)[1].rows.at(0);
  EXPECT_EQ(row.metrics.tests_run, 6u);  // the audit adds no test to the blocking plan
  EXPECT_EQ(row.metrics.failures_caught, 1);
  EXPECT_EQ(row.audit_tests, 11u);
  EXPECT_DOUBLE_EQ(row.audit_gpu_hours, 110.0 / 3600);
  EXPECT_EQ(row.escapes, 1u);
  EXPECT_EQ(row.escapes_audited, 1u);
  auto table = format_replay(*history, *reports);
  EXPECT_NE(table.find("| fastci-select | 100.0% | 11 | 0.031 | 1 | 1 |"), std::string::npos) << table;
  auto json = nlohmann::json::parse(format_replay_json(*history, *reports));
  EXPECT_EQ(json["strategies"]["fastci-select"]["audit"]["escapes_audited"], 1);
  EXPECT_FALSE(json["strategies"]["run-all"].contains("audit"));
  // Without the option nothing is audited and the table is not printed.
  options.audit_fraction = 0;
  auto plain = replay(*history, {ReplayStrategy::fastci_select}, options);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)[0].rows.at(0).audit_tests, 0u);
  EXPECT_EQ((*plain)[0].rows.at(0).escapes, 1u);
  EXPECT_EQ(format_replay(*history, *plain).find("Audit of the skips"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Replay, JsonTotalsCountCommitsAndMutantsApart) {
  auto dir = example_history();
  auto history = load_history(mutant_history(dir));
  ASSERT_TRUE(history.ok()) << history.error().to_string();
  ReplayOptions options;
  options.state_dir = dir / "state";
  auto reports = replay(*history, {ReplayStrategy::run_all, ReplayStrategy::fastci_select, ReplayStrategy::fastci_prune},
                        options);
  ASSERT_TRUE(reports.ok()) << reports.error().to_string();
  auto j = nlohmann::ordered_json::parse(format_replay_json(*history, *reports));
  EXPECT_EQ(j["format"], "fastci-replay/1");
  EXPECT_EQ(j["commits"], 1);
  EXPECT_EQ(j["tests"], 17);
  EXPECT_EQ(j["mutants"]["total"], 2);
  EXPECT_EQ(j["mutants"]["killed"], 1);
  ASSERT_EQ(j["strategies"].size(), 3u);
  // strategies keep the order they were asked for
  std::vector<std::string> names;
  for (const auto& [name, value] : j["strategies"].items()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"run-all", "fastci-select", "fastci-prune"}));
  const auto& all = j["strategies"]["run-all"];
  // the real commit only: 17 tests of 10 s on 2 GPUs, its one failure caught
  EXPECT_EQ(all["tests_run"], 17);
  EXPECT_EQ(all["tests_total"], 17);
  EXPECT_EQ(all["pruned"], 0);
  EXPECT_DOUBLE_EQ(all["latency_hours"].get<double>(), 90.0 / 3600);
  EXPECT_DOUBLE_EQ(all["gpu_hours"].get<double>(), 170.0 / 3600);
  EXPECT_EQ(all["failures_total"], 1);
  EXPECT_EQ(all["failures_caught"], 1);
  EXPECT_EQ(all["mutants_killed"], 1);
  EXPECT_EQ(all["mutants_caught"], 1);
  EXPECT_TRUE(all["mutants_missed"].empty());
  // every entry on its own: the real commit, then its two mutants
  ASSERT_EQ(all["rows"].size(), 3u);
  EXPECT_TRUE(all["rows"][0]["mutant_of"].is_null());
  EXPECT_EQ(all["rows"][0]["tests_run"], 17);
  EXPECT_DOUBLE_EQ(all["rows"][0]["gpu_hours"].get<double>(), 170.0 / 3600);
  EXPECT_FALSE(all["rows"][1]["mutant_of"].is_null());
  int caught = 0;
  for (std::size_t i = 1; i < 3; ++i) caught += all["rows"][i]["mutant_caught"] == true;
  EXPECT_EQ(caught, 1);
  EXPECT_TRUE(all["retention"].is_null());  // no evidence store
  EXPECT_DOUBLE_EQ(all["analysis_seconds"].get<double>(), 0);
  // APFD over the real commit (its failure 15th of 17) and the killed mutant (its killer 14th; the
  // test that already failed on the real commit is not the mutant's fault); the surviving mutant
  // has no failure of its own and is left out.
  EXPECT_EQ(all["apfd_rows"], 2);
  EXPECT_DOUBLE_EQ(all["mean_apfd"].get<double>(), ((17 - 15 + 0.5) / 17 + (17 - 14 + 0.5) / 17) / 2);
  ASSERT_TRUE(all["mean_apfdc"].is_number());
  // Per row: the real commit's failure started 15th; the surviving mutant has no failure to time.
  EXPECT_DOUBLE_EQ(all["rows"][0]["apfd"].get<double>(), (17 - 15 + 0.5) / 17);
  ASSERT_TRUE(all["rows"][0]["first_failure_seconds"].is_number());
  std::vector<double> first_failures;
  for (const auto& row : all["rows"]) {
    if (row["failures_caught"] == 0) {
      EXPECT_TRUE(row["first_failure_seconds"].is_null());
      continue;
    }
    first_failures.push_back(row["first_failure_seconds"].get<double>());
    EXPECT_GT(first_failures.back(), 0);
  }
  ASSERT_EQ(first_failures.size(), 2u);  // the real commit and the killed mutant: the middle two
  EXPECT_DOUBLE_EQ(all["median_first_failure_seconds"].get<double>(), (first_failures[0] + first_failures[1]) / 2);
  // the mutants' own totals: two runs of the 17 tests
  EXPECT_EQ(all["on_mutants"]["tests_run"], 34);
  EXPECT_DOUBLE_EQ(all["on_mutants"]["latency_hours"].get<double>(), 2 * 90.0 / 3600);
  EXPECT_EQ(all["on_mutants"]["failures_caught"], 1);
  for (const char* name : {"fastci-select", "fastci-prune"}) {
    const auto& fastci = j["strategies"][name];
    EXPECT_EQ(fastci["tests_run"], 6) << name;
    EXPECT_DOUBLE_EQ(fastci["latency_hours"].get<double>(), 30.0 / 3600) << name;
    EXPECT_DOUBLE_EQ(fastci["gpu_hours"].get<double>(), 60.0 / 3600) << name;
    EXPECT_EQ(fastci["failures_caught"], 1) << name;
    EXPECT_EQ(fastci["mutants_caught"], 1) << name;
    EXPECT_EQ(fastci["apfd_rows"], 2) << name;  // 6 tests, the failure among them, on both
    EXPECT_GT(fastci["mean_apfd"].get<double>(), 0) << name;
    EXPECT_GT(fastci["analysis_seconds"].get<double>(), 0) << name;
    EXPECT_EQ(fastci["on_mutants"]["tests_run"], 12) << name;
  }
  EXPECT_EQ(j["strategies"]["fastci-select"]["pruned"], 0);  // pruning off
  fs::remove_all(dir);
}

TEST(Replay, BadHistoryFilesNameTheProblem) {
  auto dir = fs::temp_directory_path() / ("fastci-replay-bad-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "h.json") << R"({"format": "fastci-history/1", "repository": "r", "commits": [{"commit": "x"}]})";
  auto h = load_history(dir / "h.json");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().to_string().find("commits[0]: expected \"results\""), std::string::npos) << h.error().to_string();
  std::ofstream(dir / "v.json") << R"({"format": "something-else"})";
  EXPECT_NE(load_history(dir / "v.json").error().message.find("fastci-history/1"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fastci::planner
