#pragma once
/// Shared checks for the SQLite and PostgreSQL store tests: generated evidence with known counts,
/// and many processes ingesting into one store at once.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "evidence/store/retention.h"
#include "evidence/store/store.h"

namespace fastci::evidence {

/// Test `index` of the generated evidence: its id.
inline std::string synthetic_test_id(int index) {
  return "tests/test_synthetic.py::test_case[" + std::to_string(index) + "]";
}

/// Evidence for tests [first_test, first_test + tests), each covering `files` files: lines
/// [1 + i % 5, 10 + i % 5 + f] and [50, 60] of pkg/file_<f>.py, one context, one kernel, one knob.
inline EvidenceProducer synthetic_producer(int first_test, int tests, int files, std::string commit) {
  return [=](EvidenceSink& sink) {
    sink.begin_run(Run{commit, "2026-12-01T10:00:00Z", "runner-1", "{}", "synthetic", ""});
    for (int i = first_test; i < first_test + tests; ++i) {
      TestEvidence test;
      test.test_id = synthetic_test_id(i);
      test.outcome = i % 7 == 0 ? Outcome::failed : Outcome::passed;
      test.duration_seconds = 0.5 + i;
      test.gpus = i % 3;
      test.knobs["num_layers"] = std::to_string(2 + i % 4);
      for (int f = 0; f < files; ++f) {
        test.coverage.push_back(FileCoverage{"pkg/file_" + std::to_string(f) + ".py",
                                             {{1 + i % 5, 10 + i % 5 + f}, {50, 60}},
                                             {{-1, 1 + i % 5}, {50, 51}, {60, -50}}});
      }
      test.contexts.push_back(ExecutionContext{"pkg/file_0.py::Model.forward", {"pkg/train.py::step"},
                                               "x:tensor[bf16,2,cpu,strided]", {{3, 4}}, 1});
      test.kernels.push_back(KernelLaunch{"ampere_sgemm_128x64_tn", "4,1,1", "128,1,1", 0, {}, 3, 12.5});
      sink.add_test(std::move(test));
    }
    return util::Status{};
  };
}

/// The answers a store must give after ingesting synthetic_producer(0, tests, files, "c0ffee").
inline void expect_synthetic_queries(Store& store, int tests, int files) {
  auto covering = store.tests_covering("pkg/file_0.py", {12, 14});
  ASSERT_TRUE(covering.ok()) << covering.error().to_string();
  // Test i covers [1 + i % 5, 10 + i % 5] of file 0: lines 12..14 only when i % 5 >= 2.
  int expected = 0;
  for (int i = 0; i < tests; ++i) expected += i % 5 >= 2 ? 1 : 0;
  ASSERT_EQ(static_cast<int>(covering->size()), expected);
  for (const CoveringTest& hit : *covering) {
    EXPECT_EQ(hit.commit, "c0ffee");
    ASSERT_FALSE(hit.lines.empty());
    EXPECT_GE(hit.lines.front().first, 12);
    EXPECT_LE(hit.lines.back().second, 14);
  }
  auto none = store.tests_covering("pkg/file_0.py", {30, 45});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto unknown = store.tests_covering("pkg/missing.py", {1, 100});
  ASSERT_TRUE(unknown.ok());
  EXPECT_TRUE(unknown->empty());

  auto names = store.all_tests();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(static_cast<int>(names->size()), tests);

  auto history = store.history(synthetic_test_id(3));
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].outcome, Outcome::passed);
  EXPECT_DOUBLE_EQ(*(*history)[0].duration_seconds, 3.5);
  EXPECT_EQ((*history)[0].gpus, 0);
  EXPECT_EQ((*history)[0].knobs.at("num_layers"), "5");

  auto coverage = store.coverage_of(synthetic_test_id(1));
  ASSERT_TRUE(coverage.ok());
  ASSERT_EQ(static_cast<int>(coverage->size()), files);
  EXPECT_EQ(coverage->front().coverage.lines, (std::vector<LineRange>{{2, 11}, {50, 60}}));
  EXPECT_EQ(coverage->front().coverage.arcs, (std::vector<Arc>{{-1, 2}, {50, 51}, {60, -50}}));

  auto covered = store.covered_files(synthetic_test_id(1));
  ASSERT_TRUE(covered.ok()) << covered.error().to_string();
  ASSERT_EQ(static_cast<int>(covered->size()), files);  // one run
  EXPECT_EQ(covered->front().path, coverage->front().coverage.path);
  EXPECT_EQ(covered->front().run_id, coverage->front().run_id);

  auto contexts = store.contexts_for_function("pkg/file_0.py::Model.");
  ASSERT_TRUE(contexts.ok()) << contexts.error().to_string();
  EXPECT_EQ(static_cast<int>(contexts->size()), tests);
  auto none_of_file = store.contexts_of(synthetic_test_id(0), "pkg/file_1.py::");
  ASSERT_TRUE(none_of_file.ok());
  EXPECT_TRUE(none_of_file->empty());

  auto kernels = store.kernels_of(synthetic_test_id(2));
  ASSERT_TRUE(kernels.ok());
  ASSERT_EQ(kernels->size(), 1u);
  EXPECT_EQ((*kernels)[0].launch.count, 3u);
  EXPECT_EQ((*kernels)[0].launch.block, "128,1,1");
  auto kernel_names = store.kernel_names();
  ASSERT_TRUE(kernel_names.ok()) << kernel_names.error().to_string();
  ASSERT_EQ(kernel_names->size(), 1u);  // every test launched the same kernel, 3 times
  EXPECT_EQ((*kernel_names)[0], (std::pair<std::string, std::uint64_t>{"ampere_sgemm_128x64_tn", 3u * tests}));

  auto latest = store.latest_results();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(static_cast<int>(latest->size()), tests);

  auto stats = store.stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->runs, 1);
  EXPECT_EQ(stats->tests, tests);
  EXPECT_EQ(stats->files, files);
  EXPECT_EQ(stats->results, tests);
  EXPECT_EQ(stats->coverage_rows, tests * files);
  EXPECT_EQ(stats->contexts, tests);
  EXPECT_EQ(stats->kernels, tests);
  EXPECT_EQ(stats->knob_values, tests);
  EXPECT_GT(stats->bytes, 0);
}

/// Every count of `after` equals `before`'s.
inline void expect_same_counts(const StoreStats& before, const StoreStats& after) {
  EXPECT_EQ(before.runs, after.runs);
  EXPECT_EQ(before.tests, after.tests);
  EXPECT_EQ(before.files, after.files);
  EXPECT_EQ(before.results, after.results);
  EXPECT_EQ(before.coverage_rows, after.coverage_rows);
  EXPECT_EQ(before.contexts, after.contexts);
  EXPECT_EQ(before.kernels, after.kernels);
  EXPECT_EQ(before.knob_values, after.knob_values);
}

/// A reader that fails halfway through its file, after writing a run, tests and new paths, leaves
/// the store exactly as it was, and its error names the file and line.
inline void expect_failed_ingest_leaves_store_unchanged(Store& store) {
  ASSERT_TRUE(store.ingest(synthetic_producer(0, 10, 3, "aaaa"), "synthetic", "good").ok());
  auto before = store.stats();
  ASSERT_TRUE(before.ok()) << before.error().to_string();
  auto failed = store.ingest(
      [](EvidenceSink& sink) {
        util::Status ignored = synthetic_producer(100, 20, 5, "bbbb")(sink);
        (void)ignored;
        return util::Status(util::Error{"unexpected token", "bad.xml", 17});
      },
      "synthetic", "bad.xml");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().to_string(), "bad.xml:17: unexpected token");
  auto after = store.stats();
  ASSERT_TRUE(after.ok());
  expect_same_counts(*before, *after);
}

/// Forks `processes` children that open `url` and ingest disjoint tests at the same moment, then
/// checks that every row of every child is in the store.
inline void expect_concurrent_ingests_lose_nothing(const std::string& url, int processes, int tests_per_process,
                                                   int files) {
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < processes; ++p) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(start[1]);
      char go = 0;
      (void)!::read(start[0], &go, 1);  // returns when the parent closes the pipe: all start together
      auto store = Store::open(url);
      if (!store) {
        std::fprintf(stderr, "child %d: %s\n", p, store.error().to_string().c_str());
        ::_exit(2);
      }
      auto result = (*store)->ingest(
          synthetic_producer(p * tests_per_process, tests_per_process, files, "commit" + std::to_string(p)),
          "synthetic", "process-" + std::to_string(p));
      if (!result) std::fprintf(stderr, "child %d: %s\n", p, result.error().to_string().c_str());
      ::_exit(result ? 0 : 1);
    }
    children.push_back(child);
  }
  ::close(start[0]);
  ::close(start[1]);
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer process failed: " << status;
  }
  auto store = Store::open(url);
  ASSERT_TRUE(store.ok()) << store.error().to_string();
  auto stats = (*store)->stats();
  ASSERT_TRUE(stats.ok());
  std::int64_t tests = static_cast<std::int64_t>(processes) * tests_per_process;
  EXPECT_EQ(stats->runs, processes);
  EXPECT_EQ(stats->tests, tests);
  EXPECT_EQ(stats->files, files);
  EXPECT_EQ(stats->results, tests);
  EXPECT_EQ(stats->coverage_rows, tests * files);
  EXPECT_EQ(stats->contexts, tests);
  EXPECT_EQ(stats->kernels, tests);
  auto names = (*store)->all_tests();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(static_cast<std::int64_t>(names->size()), tests);
}

/// Four runs ingested; gc keeping two deletes the two oldest and every row they alone held.
inline void expect_gc_keeps_the_newest_runs(Store& store) {
  for (int r = 0; r < 4; ++r)
    ASSERT_TRUE(store.ingest(synthetic_producer(r * 3, 3, 2, "commit" + std::to_string(r)), "synthetic",
                             "run-" + std::to_string(r))
                    .ok());
  auto before = store.runs();
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->size(), 4u);
  auto deleted = collect_garbage(store, {2, std::nullopt}, std::time(nullptr));
  ASSERT_TRUE(deleted.ok()) << deleted.error().to_string();
  EXPECT_EQ(deleted->deleted, (std::vector<std::int64_t>{(*before)[0].id, (*before)[1].id}));
  EXPECT_EQ(deleted->runs, 4u);
  auto after = store.runs();
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 2u);
  EXPECT_EQ((*after)[0].id, (*before)[2].id);
  auto stats = store.stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->runs, 2);
  EXPECT_EQ(stats->results, 6);
  EXPECT_EQ(stats->coverage_rows, 12);
  // Nothing is old yet: an age limit alone keeps everything.
  auto none = collect_garbage(store, {std::nullopt, 1.0}, std::time(nullptr));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->deleted.empty());
  auto later = collect_garbage(store, {std::nullopt, 1.0}, std::time(nullptr) + 3 * 86400);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->deleted.size(), 2u);
}

}  // namespace fastci::evidence
