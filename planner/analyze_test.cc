#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "planner/analyze.h"
#include "planner/git_repository.h"
#include "planner/plan_json.h"
#include "planner/report.h"

namespace fastci::planner {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("fastci_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

int sh(const std::string& command) { return std::system(command.c_str()); }

fs::path example_repo() {
  static fs::path path = [] {
    auto dest = temp_dir("analyze_example");
    EXPECT_EQ(sh(std::string(FASTCI_SOURCE_DIR) + "/scripts/make_example_repo.sh " + dest.string() + " >/dev/null"), 0);
    return dest;
  }();
  return path;
}

AnalyzeOptions options_for(const fs::path& repo, const std::string& base, const std::string& head) {
  AnalyzeOptions o;
  o.repository = repo;
  o.base = base;
  o.head = head;
  o.show_progress = false;
  o.state_dir = repo / ".fastci-test";
  return o;
}

std::set<std::string> selected_ids(const Plan& plan) {
  std::set<std::string> out;
  for (const auto& s : plan.selection.selected) out.insert(s.test.id);
  return out;
}

TEST(Analyze, ExampleChangeSelectsExactlyTheTestsThatReachTheRouter) {
  auto plan = analyze(options_for(example_repo(), "base", "change"));
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  ASSERT_EQ(plan->changes.symbols.size(), 1u);
  EXPECT_EQ(plan->changes.symbols[0].id, "py:minifw.moe.router.topk_routing");
  EXPECT_FALSE(plan->widened());
  std::set<std::string> want = {
      "tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[1]",
      "tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[2]",
      "tests/unit/test_router.py::TestTopKRouter::test_weights_normalised",
      "tests/unit/test_model.py::test_forward_keeps_shape[0]",
      "tests/unit/test_model.py::test_forward_keeps_shape[4]",
      "tests/unit/test_smoke.py::test_package_imports",  // always_run in [tool.fastci]
  };
  EXPECT_EQ(selected_ids(*plan), want);
  EXPECT_EQ(plan->selection.selected.size() + plan->selection.skipped.size(), 17u);
  for (const auto& s : plan->selection.selected) {
    ASSERT_FALSE(s.reasons.empty()) << s.test.id;
    if (s.reasons[0].kind == SelectionReason::Kind::static_path) {
      EXPECT_EQ(s.reasons[0].witness.back().symbol_id, "py:minifw.moe.router.topk_routing");
    }
  }
  auto json = plan_to_json(*plan);
  EXPECT_EQ(json["schema"], kPlanSchema);
  EXPECT_EQ(json["summary"]["selected"], 6);
  auto report = render_markdown_report(*plan);
  EXPECT_NE(report.find("**6 of 17 tests to run**"), std::string::npos);
}

TEST(Analyze, SecondRunParsesNothing) {
  auto o = options_for(example_repo(), "base", "change");
  o.state_dir = example_repo() / ".fastci-cache-test";
  auto first = analyze(o);
  ASSERT_TRUE(first.ok());
  EXPECT_GT(first->timing.files_parsed, 0u);
  auto second = analyze(o);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->timing.files_parsed, 0u);
  EXPECT_EQ(selected_ids(*second), selected_ids(*first));
}

TEST(Analyze, UnknownRefsAreClearErrors) {
  auto plan = analyze(options_for(example_repo(), "base", "no-such-ref"));
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("unknown ref 'no-such-ref'"), std::string::npos);
  auto not_repo = analyze(options_for(temp_dir("not_a_repo"), "a", "b"));
  ASSERT_FALSE(not_repo.ok());
  EXPECT_NE(not_repo.error().message.find("not a git repository"), std::string::npos);
}

/// The example with a target branch that moved on after the change branched off: `target` edits
/// minifw/attention.py, which the change never touched.
fs::path moved_target_repo() {
  auto dir = temp_dir("analyze_pr");
  EXPECT_EQ(sh(std::string(FASTCI_SOURCE_DIR) + "/scripts/make_example_repo.sh " + dir.string() + " >/dev/null"), 0);
  std::string git = "cd " + dir.string() + " && git -c user.name=t -c user.email=t@t ";
  EXPECT_EQ(sh(git + "checkout -q -b target base"), 0);
  std::ofstream(dir / "minifw/attention.py", std::ios::app) << "\n\ndef scaled(x):\n    return x * 2\n";
  EXPECT_EQ(sh(git + "commit -qam 'target moves on' && git checkout -q change"), 0);
  return dir;
}

std::set<std::string> changed_files(const Plan& plan) {
  std::set<std::string> out;
  for (const auto& f : plan.changes.files) out.insert(f.path);
  return out;
}

TEST(Analyze, ThePlanTextIsTheDocumentWrittenEntryByEntry) {
  auto plan = analyze(options_for(example_repo(), "base", "change"));
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  auto dumped = [](const Plan& p) {
    return plan_to_json(p).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  };
  EXPECT_EQ(plan_json_text(*plan), dumped(*plan)) << "selected and skipped tests; no pruned or quarantined one";

  // Every list filled, with text that needs escaping and a reason that looks like the writer's markers.
  auto& p = plan->prioritized;
  ASSERT_GE(p.ordered.size(), 2u);
  p.pruned.push_back({p.ordered[1].selected.test, {p.ordered[0].selected.test.id}, "same contexts as \"kept\"\n", 12.5});
  p.over_budget.push_back({p.ordered[1].selected.test, "\x01tests"});
  p.quarantined.push_back({p.ordered[0].selected.test, "flaky: failed 2 of the last 5 runs \xff"});
  plan->notes.push_back("\n  \"tests\": \"\x01tests\"");
  const std::string text = plan_json_text(*plan);
  EXPECT_EQ(text, dumped(*plan));
  EXPECT_EQ(nlohmann::json::parse(text)["quarantined"].size(), 1u);

  p.ordered.clear();
  EXPECT_EQ(plan_json_text(*plan), dumped(*plan)) << "an empty list";
}

TEST(Analyze, VariantsShareOneAnalysisAndEachIsTheRunItStandsFor) {
  auto options = options_for(example_repo(), "base", "change");
  const std::vector<PlanVariant> variants = {{PruneMode::off, false, false}, {PruneMode::safe, true, false},
                                             {PruneMode::safe, false, true}};
  auto plans = analyze_variants(options, variants);
  ASSERT_TRUE(plans.ok()) << plans.error().to_string();
  ASSERT_EQ(plans->size(), variants.size());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    auto alone = options;
    alone.prioritize.prune = variants[i].prune;
    alone.prioritize.order_by_risk = variants[i].order_by_risk;
    alone.shrink = variants[i].shrink;
    auto single = analyze(alone);
    ASSERT_TRUE(single.ok()) << single.error().to_string();
    Plan shared = (*plans)[i];
    EXPECT_GT(shared.timing.total_seconds, 0);
    shared.timing = {};  // what was parsed, and how long it took, differ from run to run
    single->timing = {};
    EXPECT_EQ(plan_json_text(shared), plan_json_text(*single)) << "variant " << i;
  }
  EXPECT_EQ((*plans)[0].options.prune, PruneMode::off);
  EXPECT_TRUE((*plans)[1].options.order_by_risk);

  // The head indexed beforehand (a replay's file-level baseline does) gives the same plans.
  auto repo = GitRepository::open(options.repository);
  ASSERT_TRUE(repo.ok());
  auto cache = open_index_cache(options);
  ASSERT_TRUE(cache.ok());
  auto head = index_commit(**repo, *(*repo)->resolve("change"), **cache, options);
  ASSERT_TRUE(head.ok()) << head.error().to_string();
  head->seconds = 1000;  // counted as this analysis's own indexing
  auto given = analyze_variants(options, variants, &*head);
  ASSERT_TRUE(given.ok()) << given.error().to_string();
  for (std::size_t i = 0; i < variants.size(); ++i) {
    EXPECT_GE((*given)[i].timing.total_seconds, 1000);
    Plan a = (*given)[i], b = (*plans)[i];
    a.timing = {};
    b.timing = {};
    EXPECT_EQ(plan_json_text(a), plan_json_text(b)) << "variant " << i;
  }
}

TEST(Analyze, APullRequestBehindItsTargetIsItsOwnCommitsOnly) {
  auto repo = moved_target_repo();
  auto pr = analyze(options_for(repo, "target", "change"));
  ASSERT_TRUE(pr.ok()) << pr.error().to_string();
  EXPECT_EQ(changed_files(*pr), std::set<std::string>{"minifw/moe/router.py"});
  EXPECT_EQ(pr->diff_mode, "merge-base");
  auto base_tag = *(*GitRepository::open(repo))->resolve("base");
  EXPECT_EQ(pr->changes.base, base_tag);  // where the branch left the target
  EXPECT_NE(pr->base_ref_commit, base_tag);
  auto json = plan_to_json(*pr);
  EXPECT_EQ(json["base"], base_tag);
  EXPECT_EQ(json["base_ref"], pr->base_ref_commit);

  auto o = options_for(repo, "target", "change");
  o.diff = DiffMode::tree;
  auto tree = analyze(o);
  ASSERT_TRUE(tree.ok()) << tree.error().to_string();
  EXPECT_EQ(changed_files(*tree), (std::set<std::string>{"minifw/attention.py", "minifw/moe/router.py"}));
  EXPECT_EQ(tree->changes.base, tree->base_ref_commit);
}

TEST(Analyze, AShallowCloneNamesTheMissingCommitAndTheFetch) {
  auto repo = moved_target_repo();
  auto shallow = temp_dir("analyze_shallow");
  ASSERT_EQ(sh("git clone -q --depth 1 --branch change file://" + repo.string() + " " + shallow.string() +
               " 2>/dev/null"),
            0);
  auto missing = analyze(options_for(shallow, "origin/target", "HEAD"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("unknown ref 'origin/target'"), std::string::npos);
  EXPECT_NE(missing.error().message.find("git fetch --deepen=200 origin target"), std::string::npos)
      << missing.error().message;
  // The target's tip fetched alone: both commits exist, their common ancestor does not.
  ASSERT_EQ(sh("cd " + shallow.string() + " && git fetch -q --depth 1 origin target:refs/remotes/origin/target"), 0);
  auto cut = analyze(options_for(shallow, "origin/target", "HEAD"));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("no common ancestor"), std::string::npos) << cut.error().message;
  EXPECT_NE(cut.error().message.find("shallow"), std::string::npos) << cut.error().message;
}

/// A repository whose head commit holds every kind of bad input at once.
fs::path bad_input_repo() {
  auto dir = temp_dir("analyze_bad");
  EXPECT_EQ(sh(std::string(FASTCI_SOURCE_DIR) + "/scripts/make_example_repo.sh " + dir.string() + " >/dev/null"), 0);
  // First a valid module and a test of it, then a commit that breaks the module.
  std::ofstream(dir / "minifw/broken.py") << "def f(x):\n    return x\n";
  std::ofstream(dir / "tests/unit/test_broken.py") << "from minifw.broken import f\n\ndef test_f():\n    assert f(1) == 1\n";
  EXPECT_EQ(sh("cd " + dir.string() + " && git add -A && git -c user.name=t -c user.email=t@t commit -qm ok && git tag good"), 0);
  std::ofstream(dir / "minifw/broken.py") << "def f(x)\n    return x\n";
  std::ofstream(dir / "minifw/latin1.py") << "# caf\xe9\nVALUE = 1\n";
  std::ofstream(dir / "minifw/empty.py");
  std::ofstream(dir / "minifw/blob.py", std::ios::binary) << std::string("\x7f" "ELF\0\0\x01\x02", 8);
  {
    std::ofstream big(dir / "minifw/generated.py");
    for (int i = 0; i < 200000; ++i) big << "CONSTANT_" << i << " = " << i << "  # generated table row\n";
  }
  fs::create_symlink("/etc/passwd", dir / "minifw/escape.py");
  EXPECT_EQ(sh("cd " + dir.string() + " && git add -A && git -c user.name=t -c user.email=t@t commit -qm bad"), 0);
  return dir;
}

TEST(Analyze, BadInputNeverCrashesAndNeverNarrowsSilently) {
  auto repo = bad_input_repo();
  auto plan = analyze(options_for(repo, "good", "HEAD"));
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  ASSERT_GT(fs::file_size(repo / "minifw/generated.py"), 5u << 20);
  std::set<std::string> diagnosed;
  for (const auto& d : plan->diagnostics) diagnosed.insert(d.file);
  EXPECT_TRUE(diagnosed.count("minifw/broken.py"));
  EXPECT_TRUE(diagnosed.count("minifw/latin1.py"));
  EXPECT_TRUE(diagnosed.count("minifw/blob.py"));
  EXPECT_TRUE(diagnosed.count("minifw/escape.py"));
  // The unparsable module widens to its importers, and says so.
  bool widened_broken = false;
  for (const auto& w : plan->changes.widenings)
    widened_broken |= w.file == "minifw/broken.py" && w.scope == Widening::Scope::importers;
  EXPECT_TRUE(widened_broken);
  EXPECT_TRUE(selected_ids(*plan).count("tests/unit/test_broken.py::test_f"));
  auto report = render_markdown_report(*plan);
  EXPECT_NE(report.find("Widened selection"), std::string::npos);
}

}  // namespace
}  // namespace fastci::planner
