#include "planner/evidence_select.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "planner/git_test_support.h"

namespace fastci::planner {
namespace {

namespace fs = std::filesystem;
using evidence::Outcome;

const char* kChanged = "py:pkg.a.f";

/// A repository whose pkg/a.py::f is the changed symbol, a store of CI runs, and a static selection
/// in which every test reaches f through a call path.
class EvidenceSelect : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fastci_evidence_select_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "repo/pkg");
    fs::create_directories(dir_ / "repo/csrc");
    write("csrc/op.cpp", "int op(int x) {\n  return x + 1;\n}\n");
    write("csrc/other.cpp", "int other() {\n  return 2;\n}\n");
    write("pkg/c.py", "def h(x,\n      y=1.0):\n    return x * y\n");
    write("pkg/a.py", "def f(x):\n    y = x + 1\n    return y\n");
    write("pkg/b.py", "def g():\n    return 2\n");
    old_ = commit("old: f computes y");
    write("pkg/a.py", "def f(x):\n    return x\n");
    base_ = commit("base: f returns x");
    auto store = evidence::Store::open("sqlite://" + (dir_ / "evidence.db").string());
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    store_ = std::move(*store);
    auto repo = GitRepository::open(dir_ / "repo");
    ASSERT_TRUE(repo.ok()) << repo.error().to_string();
    repo_ = std::move(*repo);
    base_symbol_ = {kChanged, frontend::Language::python, frontend::SymbolKind::function, "pkg.a.f", "pkg/a.py", 1, 2};
    changes_.symbols.push_back({kChanged, SymbolChange::changed, frontend::SymbolKind::function,
                                frontend::Language::python, "pkg.a.f", "pkg/a.py", 1, 2, {}});
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& path, const std::string& text) { std::ofstream(dir_ / "repo" / path) << text; }

  std::string commit(const std::string& message) { return commit_all(dir_ / "repo", message); }

  struct Recorded {
    std::string test;
    Outcome outcome;
    int gpus;
    bool ran_f;  ///< covered f's body at base lines (2) or, at `old_`, lines 2-3
  };

  /// One CI run at `commit`; a test that did not run f covered pkg/b.py only.
  void run(const std::string& commit, const std::vector<Recorded>& tests) {
    auto result = store_->ingest(
        [&](evidence::EvidenceSink& sink) {
          sink.begin_run(evidence::Run{commit, "2026-12-01T10:00:00Z", "ci", "{}", "test", ""});
          for (const auto& r : tests) {
            evidence::TestEvidence t;
            t.test_id = r.test;
            t.outcome = r.outcome;
            t.duration_seconds = 10;
            t.gpus = r.gpus;
            if (r.ran_f) t.coverage.push_back({"pkg/a.py", {{1, commit == old_ ? 3 : 2}}, {}});
            t.coverage.push_back({"pkg/b.py", {{1, 2}}, {}});
            sink.add_test(std::move(t));
          }
          return util::Status{};
        },
        "test", "runs");
    ASSERT_TRUE(result.ok()) << result.error().to_string();
  }

  SelectedTest reaching(const std::string& id, int gpus = 0) {
    frontend::Test t{id, "py:tests.test_a." + id, "tests/test_a.py", 1, {}, {}, gpus, {}};
    SelectionReason r{SelectionReason::Kind::static_path, "reaches changed pkg.a.f", kChanged,
                      {{"test:" + id, id, frontend::EdgeKind::call}, {kChanged, "pkg.a.f", frontend::EdgeKind::call}}};
    return {t, {r}, 1, {}, {}};
  }

  EvidenceSelection refine(const Selection& selection) {
    LineMapper lines(*repo_, base_);
    auto lookup = [&](const std::string& id) -> const frontend::Symbol* {
      return id == kChanged ? &base_symbol_ : nullptr;
    };
    return refine_with_evidence(selection, changes_, lookup, source_at_base(), *store_, lines);
  }

  BaseSourceLookup source_at_base() {
    return [this](const std::string& path) -> const std::string* {
      auto text = repo_->read_file(base_, path);
      if (!text.ok()) return nullptr;
      sources_[path] = *text;
      return &sources_[path];
    };
  }

  static const SelectedTest* find(const EvidenceSelection& e, const std::string& id) {
    for (const auto& s : e.selection.selected)
      if (s.test.id == id) return &s;
    return nullptr;
  }
  static const SkippedTest* find_skipped(const EvidenceSelection& e, const std::string& id) {
    for (const auto& s : e.selection.skipped)
      if (s.test.id == id) return &s;
    return nullptr;
  }

  fs::path dir_;
  std::string old_, base_;
  std::unique_ptr<evidence::Store> store_;
  std::unique_ptr<GitRepository> repo_;
  frontend::Symbol base_symbol_;
  ChangeSet changes_;
  std::map<std::string, std::string> sources_;
};

TEST_F(EvidenceSelect, APassingFullSizeRunThatNeverRanTheSymbolRulesItOutAndSaysWhichRun) {
  run(base_, {{"t_ran", Outcome::passed, 2, true}, {"t_not", Outcome::passed, 2, false}});
  auto e = refine({{reaching("t_ran", 2), reaching("t_not", 2)}, {}});
  const auto* skipped = find_skipped(e, "t_not");
  ASSERT_NE(skipped, nullptr);
  EXPECT_NE(skipped->reason.find("evidence: run "), std::string::npos) << skipped->reason;
  EXPECT_NE(skipped->reason.find("(passed, 2 GPUs) executed none"), std::string::npos) << skipped->reason;
}

TEST_F(EvidenceSelect, AConfirmedStaticPathBecomesAnEvidenceReasonWithItsWitness) {
  run(base_, {{"t_ran", Outcome::passed, 2, true}});
  auto e = refine({{reaching("t_ran", 2)}, {}});
  const auto* t = find(e, "t_ran");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->reasons.size(), 1u);
  EXPECT_EQ(t->reasons[0].kind, SelectionReason::Kind::evidence);
  EXPECT_EQ(t->reasons[0].witness.size(), 2u);
  EXPECT_EQ(t->reasons[0].text.find("no fresh evidence"), std::string::npos) << t->reasons[0].text;
  EXPECT_NE(t->reasons[0].text.find("(passed, 2 GPUs)"), std::string::npos) << t->reasons[0].text;
  ASSERT_TRUE(t->evidence_run);
  EXPECT_EQ(t->evidence_run->outcome, "passed");
  EXPECT_TRUE(e.evidence.at("t_ran").has_evidence);
  EXPECT_EQ(e.evidence.at("t_ran").covered_changed.count(kChanged), 1u);
}

TEST_F(EvidenceSelect, AFailedRunNeverNarrows) {
  // It errored in setup before reaching f: its coverage shows less than the test runs.
  run(base_, {{"t_early_error", Outcome::error, 1, false}});
  auto e = refine({{reaching("t_early_error")}, {}});
  const auto* t = find(e, "t_early_error");
  ASSERT_NE(t, nullptr) << "a run that errored ruled the static path out";
  EXPECT_EQ(t->reasons[0].kind, SelectionReason::Kind::static_path);
  EXPECT_NE(t->reasons[0].text.find("no run may narrow it"), std::string::npos) << t->reasons[0].text;
  EXPECT_NE(t->evidence_note.find("did not pass (error)"), std::string::npos) << t->evidence_note;
  EXPECT_FALSE(e.notes.empty());
}

TEST_F(EvidenceSelect, ARunAtASmallerSizeNeverNarrows) {
  // Recorded at world_size 1 for shrinking; at its declared 4 it takes the path that calls f.
  run(base_, {{"t_dist", Outcome::passed, 1, false}});
  auto e = refine({{reaching("t_dist", 4)}, {}});
  const auto* t = find(e, "t_dist");
  ASSERT_NE(t, nullptr) << "a smaller run ruled the static path out";
  EXPECT_NE(t->evidence_note.find("not at the test's full size of 4"), std::string::npos) << t->evidence_note;
  // The full-size run, once recorded, decides.
  run(base_, {{"t_dist", Outcome::passed, 4, false}});
  auto after = refine({{reaching("t_dist", 4)}, {}});
  EXPECT_EQ(find(after, "t_dist"), nullptr);
}

TEST_F(EvidenceSelect, StaleLinesNeverNarrowAndSaySo) {
  // The only run is at `old_`, where f's body had other lines: they cannot be carried to base.
  run(old_, {{"t_stale", Outcome::passed, 1, false}});
  auto e = refine({{reaching("t_stale")}, {}});
  const auto* t = find(e, "t_stale");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->reasons[0].kind, SelectionReason::Kind::static_path);
  EXPECT_NE(t->reasons[0].text.find("its evidence is stale"), std::string::npos) << t->reasons[0].text;
}

TEST_F(EvidenceSelect, AnyRunThatExecutedTheSymbolAddsTheTest) {
  // Statically skipped, but a failing run executed f: evidence adds whatever its outcome.
  run(base_, {{"t_dynamic", Outcome::failed, 1, true}});
  frontend::Test t{"t_dynamic", "py:tests.test_a.t_dynamic", "tests/test_a.py", 1, {}, {}, 0, {}};
  auto e = refine({{}, {{t, "no call path"}}});
  const auto* selected = find(e, "t_dynamic");
  ASSERT_NE(selected, nullptr);
  EXPECT_EQ(selected->reasons[0].kind, SelectionReason::Kind::evidence);
  EXPECT_FALSE(e.evidence.at("t_dynamic").has_evidence);  // no run of it may narrow or prune
}

TEST_F(EvidenceSelect, ContextsAtTheCollectorsSamplingLimitStandForThemselves) {
  // Three tests ran f the same way; "t_busy" called it 32 times, the plugin's limit (its run says so):
  // calls past the limit were not examined, so its contexts are not known to be these alone.
  auto result = store_->ingest(
      [&](evidence::EvidenceSink& sink) {
        sink.begin_run(evidence::Run{base_, "2026-12-01T10:00:00Z", "ci",
                                     R"({"sampling": {"max_contexts": 8, "max_calls": 32}})", "test", ""});
        for (auto [id, calls] : {std::pair<std::string, std::uint64_t>{"t_a", 2}, {"t_b", 3}, {"t_busy", 32}}) {
          evidence::TestEvidence t;
          t.test_id = id;
          t.outcome = Outcome::passed;
          t.coverage.push_back({"pkg/a.py", {{1, 2}}, {}});
          evidence::ExecutionContext c;
          c.function = "pkg/a.py::f";
          c.callers = {"tests/test_a.py::" + id};  // the test's own frame: not part of the pruning key
          c.arguments = "x:int[1-1]";
          c.count = calls;
          t.contexts.push_back(c);
          sink.add_test(std::move(t));
        }
        return util::Status{};
      },
      "test", "runs");
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  auto e = refine({{reaching("t_a"), reaching("t_b"), reaching("t_busy")}, {}});
  const auto& a = e.evidence.at("t_a").pairs;
  EXPECT_EQ(a, e.evidence.at("t_b").pairs);  // the same framework context: one may stand for the other
  EXPECT_EQ(a.size(), 1u);
  const auto& busy = e.evidence.at("t_busy").pairs;
  EXPECT_TRUE(busy.count({kChanged, "sampling-limit:t_busy"})) << "a truncated context set looked complete";
  bool noted = false;
  for (const auto& n : e.notes) noted |= n.find("sampling limit") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST_F(EvidenceSelect, ASignatureRunAtImportIsNotTheFunctionRunning) {
  // Python 3.11+ reports h's default on line 2 as executed when pkg/c.py is imported.
  base_symbol_ = {"py:pkg.c.h", frontend::Language::python, frontend::SymbolKind::function, "pkg.c.h", "pkg/c.py", 1, 3};
  changes_.symbols = {{"py:pkg.c.h", SymbolChange::changed, frontend::SymbolKind::function, frontend::Language::python,
                       "pkg.c.h", "pkg/c.py", 1, 3, {}}};
  auto result = store_->ingest(
      [&](evidence::EvidenceSink& sink) {
        sink.begin_run(evidence::Run{base_, "2026-12-01T10:00:00Z", "ci", "{}", "test", ""});
        for (auto [id, last] : {std::pair<std::string, int>{"t_imported", 2}, {"t_called", 3}}) {
          evidence::TestEvidence t;
          t.test_id = id;
          t.outcome = Outcome::passed;
          t.coverage.push_back({"pkg/c.py", {{1, last}}, {}});
          sink.add_test(std::move(t));
        }
        return util::Status{};
      },
      "test", "runs");
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  auto imported = reaching("t_imported"), called = reaching("t_called");
  for (auto* t : {&imported, &called}) t->reasons[0].changed_symbol = "py:pkg.c.h";
  LineMapper lines(*repo_, base_);
  auto lookup = [&](const std::string& id) -> const frontend::Symbol* { return id == "py:pkg.c.h" ? &base_symbol_ : nullptr; };
  auto e = refine_with_evidence({{imported, called}, {}}, changes_, lookup, source_at_base(), *store_, lines);
  EXPECT_NE(find_skipped(e, "t_imported"), nullptr) << "its import ran the signature, not the function";
  ASSERT_NE(find(e, "t_called"), nullptr);
  EXPECT_EQ(find(e, "t_called")->reasons[0].kind, SelectionReason::Kind::evidence);
}

TEST_F(EvidenceSelect, ARunOfFunctionEntriesShowsACallByTheFunctionsFirstLine) {
  // The plugin's tracer without coverage.py (a venv without it: DeepSpeed's deepspeed-cpu-latest
  // history) records, per test, the first line of each function called and no other line: f's body
  // line is never there, its `def` line is exactly when f ran.
  auto result = store_->ingest(
      [&](evidence::EvidenceSink& sink) {
        sink.begin_run(evidence::Run{base_, "2026-12-01T10:00:00Z", "ci", R"({"backend":"sys.setprofile"})", "test", ""});
        for (const char* id : {"t_called", "t_also", "t_not"}) {
          evidence::TestEvidence t;
          t.test_id = id;
          t.outcome = Outcome::passed;
          if (std::string(id) != "t_not") {
            t.coverage.push_back({"pkg/a.py", {{1, 1}}, {}});
            evidence::ExecutionContext c;  // the same framework context, and no arcs: branches unknown
            c.function = "pkg/a.py::f";
            c.callers = {std::string("tests/test_a.py::") + id};
            c.arguments = "x:int[1-1]";
            c.count = 1;
            t.contexts.push_back(c);
          }
          t.coverage.push_back({"pkg/b.py", {{1, 1}}, {}});
          sink.add_test(std::move(t));
        }
        return util::Status{};
      },
      "test", "runs");
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  auto e = refine({{reaching("t_called"), reaching("t_also"), reaching("t_not")}, {}});
  ASSERT_NE(find(e, "t_called"), nullptr) << "its entry line shows f was called";
  EXPECT_EQ(find(e, "t_called")->reasons[0].kind, SelectionReason::Kind::evidence);
  EXPECT_NE(find_skipped(e, "t_not"), nullptr) << "it entered g only: f was not called";
  // Equal contexts without arcs do not make one test stand for the other: they may take other branches.
  EXPECT_NE(e.evidence.at("t_called").pairs, e.evidence.at("t_also").pairs);
  EXPECT_TRUE(e.evidence.at("t_also").pairs.count({kChanged, "no-arcs:t_also"}));
}

TEST(EvidenceFunctionName, NamesFunctionsAsThePluginRecordsThem) {
  frontend::Symbol method{"py:pkg.mod.Cls.step", frontend::Language::python, frontend::SymbolKind::method,
                          "pkg.mod.Cls.step", "pkg/mod.py", 3, 9};
  EXPECT_EQ(evidence_function_name(method), "pkg/mod.py::Cls.step");
  // The plugin records f.<locals>.<lambda> as f.<lambda>: the frontend's numbered lambdas map to it.
  frontend::Symbol lambda{"py:pkg.mod.f.<lambda2>", frontend::Language::python, frontend::SymbolKind::function,
                          "pkg.mod.f.<lambda2>", "pkg/mod.py", 12, 12};
  EXPECT_EQ(evidence_function_name(lambda), "pkg/mod.py::f.<lambda>");
}

/// A C++ function's change, decided by native coverage (lcov, gcov, llvm-cov of the extension).
class NativeEvidenceSelect : public EvidenceSelect {
 protected:
  void SetUp() override {
    EvidenceSelect::SetUp();
    op_ = {"cpp:op(int)", frontend::Language::cpp, frontend::SymbolKind::function, "op(int)", "csrc/op.cpp", 1, 3};
    changes_.symbols = {{"cpp:op(int)", SymbolChange::changed, frontend::SymbolKind::function, frontend::Language::cpp,
                         "op(int)", "csrc/op.cpp", 1, 3, {}}};
  }

  /// One run at base; each test with the coverage given.
  void run_with(const std::vector<std::pair<std::string, std::vector<evidence::FileCoverage>>>& tests) {
    auto result = store_->ingest(
        [&](evidence::EvidenceSink& sink) {
          sink.begin_run(evidence::Run{base_, "2026-12-01T10:00:00Z", "ci", "{}", "test", ""});
          for (const auto& [id, coverage] : tests) {
            evidence::TestEvidence t;
            t.test_id = id;
            t.outcome = Outcome::passed;
            t.coverage = coverage;
            sink.add_test(std::move(t));
          }
          return util::Status{};
        },
        "test", "runs");
    ASSERT_TRUE(result.ok()) << result.error().to_string();
  }

  SelectedTest reaching_op(const std::string& id) {
    auto t = reaching(id);
    t.reasons[0].changed_symbol = "cpp:op(int)";
    t.reasons[0].witness.back().symbol_id = "cpp:op(int)";
    return t;
  }

  EvidenceSelection refine_op(const Selection& selection) {
    LineMapper lines(*repo_, base_);
    auto lookup = [&](const std::string& id) -> const frontend::Symbol* { return id == "cpp:op(int)" ? &op_ : nullptr; };
    return refine_with_evidence(selection, changes_, lookup, source_at_base(), *store_, lines);
  }

  frontend::Symbol op_;
};

TEST_F(NativeEvidenceSelect, NativeCoverageConfirmsAndRulesOutCppFunctions) {
  run_with({{"t_ran_op", {{"pkg/b.py", {{1, 2}}, {}}, {"csrc/op.cpp", {{1, 3}}, {}}}},
            {"t_other_native", {{"pkg/b.py", {{1, 2}}, {}}, {"csrc/other.cpp", {{1, 3}}, {}}}},
            {"t_python_only", {{"pkg/b.py", {{1, 2}}, {}}}}});
  auto e = refine_op({{reaching_op("t_ran_op"), reaching_op("t_other_native"), reaching_op("t_python_only")}, {}});
  const auto* ran = find(e, "t_ran_op");
  ASSERT_NE(ran, nullptr);
  EXPECT_EQ(ran->reasons[0].kind, SelectionReason::Kind::evidence);
  // Its run measured C++ coverage and op() is not in it: ruled out.
  const auto* skipped = find_skipped(e, "t_other_native");
  ASSERT_NE(skipped, nullptr);
  EXPECT_TRUE(skipped->reason.starts_with("evidence: run ")) << skipped->reason;
  // A run that measured Python only says nothing about C++ lines.
  const auto* python_only = find(e, "t_python_only");
  ASSERT_NE(python_only, nullptr) << "a run without C++ coverage ruled a C++ function out";
  EXPECT_NE(python_only->reasons[0].text.find("recorded no C/C++ coverage"), std::string::npos)
      << python_only->reasons[0].text;
}

}  // namespace
}  // namespace fastci::planner
