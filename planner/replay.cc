#include "planner/replay.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <set>
#include <sstream>

#include "evidence/store/store.h"
#include "planner/analyze.h"
#include "planner/failure_class.h"
#include "planner/git_repository.h"
#include "planner/test_history.h"
#include "util/file.h"
#include "util/progress.h"

namespace fastci::planner {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string file_of(const std::string& test_id) { return test_id.substr(0, test_id.find("::")); }

bool is_python(const std::string& path) { return path.ends_with(".py"); }

/// Changed lines of each file on the base side, with pure insertions kept as the line before them
/// (what the code around an insertion covered is what an insertion may affect).
std::map<std::string, std::set<int>> changed_base_lines(const std::vector<FileDiff>& diffs) {
  std::map<std::string, std::set<int>> out;
  for (const auto& d : diffs) {
    if (d.old_path.empty()) continue;
    auto& lines = out[d.old_path];
    for (int line : d.old_lines) lines.insert(line);
    for (const auto& h : d.hunks)
      if (h[1] == 0) lines.insert(std::max(1, h[0]));
  }
  return out;
}

/// Per test: the changed (file, line) pairs its recorded coverage touches.
using CoveredLines = std::map<std::string, std::set<std::pair<std::string, int>>>;

util::Result<CoveredLines> covered_changed_lines(evidence::Store& store,
                                                 const std::map<std::string, std::set<int>>& changed) {
  CoveredLines out;
  for (const auto& [path, lines] : changed) {
    if (lines.empty()) continue;
    auto hits = store.tests_covering(path, {*lines.begin(), *lines.rbegin()});
    if (!hits.ok()) return hits.error();
    for (const auto& hit : *hits)
      for (const auto& [first, last] : hit.lines)
        for (int line = first; line <= last; ++line)
          if (lines.count(line)) out[hit.test_id].insert({path, line});
  }
  return out;
}

/// What one commit's strategies share: the diff, and coverage of the changed lines.
struct CommitContext {
  const RecordedCommit* recorded = nullptr;
  std::string head;  ///< the recorded commit, resolved to its id
  /// The tree analysed just before that this one differs from in the fewest files: the base, or a
  /// mutant's real commit (IndexOptions::neighbor).
  std::string neighbor;
  std::vector<FileDiff> diffs;
  std::optional<CoveredLines> covered;  ///< set when an evidence store is there
  /// Tests whose failures are not this entry's (known-failing, flaky), from the runs before it.
  std::map<std::string, FailureClassification> classes;
  /// The runs before it as risk history (tests that failed in one of them; others have none).
  std::map<std::string, std::vector<HistoryPoint>> histories;
};

struct Decision {
  std::vector<std::string> order;
  std::string note;
  std::map<std::string, std::pair<int, double>> resized;  ///< shrunk tests: GPUs and seconds at the smaller size
  std::size_t pruned = 0;  ///< recorded tests the plan prunes
  std::vector<ReplayedTest> planned;  ///< fastci: order's tests with the plan's features
  std::vector<std::string> audited;   ///< fastci with --audit-skipped: skipped tests it runs anyway
};

/// A decision to run `order`, saying why in `note`.
Decision runs(std::vector<std::string> order, std::string note) {
  Decision d;
  d.order = std::move(order);
  d.note = std::move(note);
  return d;
}

std::vector<std::string> all_ids(const RecordedCommit& commit) {
  std::vector<std::string> ids;
  for (const auto& r : commit.results) ids.push_back(r.test_id);
  return ids;
}

/// What the file-level strategy indexes with: the history's repository and index cache.
struct Indexer {
  const GitRepository& repo;
  callgraph::IndexCache& cache;
  AnalyzeOptions options;
};

/// The run-all decision of the Python-only baselines when a change is not theirs to narrow.
std::optional<Decision> beyond_python(const CommitContext& context) {
  for (const auto& d : context.diffs) {
    const std::string& path = d.new_path.empty() ? d.old_path : d.new_path;
    if (!is_python(path)) return runs(all_ids(*context.recorded), "a non-Python file changed: everything runs");
  }
  return std::nullopt;
}

/// The commit's head indexed once for every strategy that needs it (file-level and fastci's).
util::Result<const CommitIndex*> indexed_head(const CommitContext& context, const Indexer& indexer,
                                              std::optional<CommitIndex>& slot) {
  if (!slot) {
    auto index = index_commit(indexer.repo, context.head, indexer.cache, indexer.options, context.neighbor);
    if (!index.ok()) return index.error();
    slot = std::move(*index);
  }
  return &*slot;
}

/// tests_fetcher-style: test files whose module imports (transitively) a changed module.
util::Result<Decision> file_level(const CommitContext& context, const Indexer& indexer, std::optional<CommitIndex>& head) {
  const RecordedCommit& commit = *context.recorded;
  if (auto everything = beyond_python(context)) return *everything;
  for (const auto& d : context.diffs)
    if (d.status == FileStatus::deleted) return runs(all_ids(commit), "a module was deleted: everything runs");
  auto index = indexed_head(context, indexer, head);
  if (!index.ok()) return index.error();
  const auto& graph = (*index)->graph;
  std::set<std::string> impacted;
  std::deque<callgraph::VertexId> queue;
  std::set<callgraph::VertexId> seen;
  for (const auto& d : context.diffs) {
    impacted.insert(d.new_path);
    for (auto v : graph.symbols_in_file(d.new_path))
      if (graph.vertex(v).symbol.kind == frontend::SymbolKind::module && seen.insert(v).second) queue.push_back(v);
  }
  while (!queue.empty()) {
    auto v = queue.front();
    queue.pop_front();
    impacted.insert(graph.vertex(v).symbol.file);
    for (const auto& e : graph.dependents(v))
      if (e.kind == frontend::EdgeKind::import && seen.insert(e.from).second) queue.push_back(e.from);
  }
  Decision out;
  for (const auto& r : commit.results)
    if (impacted.count(file_of(r.test_id))) out.order.push_back(r.test_id);
  return out;
}

/// fastci's own strategies: the ones analyze() plans.
bool is_fastci(ReplayStrategy strategy) {
  return strategy == ReplayStrategy::fastci_select || strategy == ReplayStrategy::fastci_prune ||
         strategy == ReplayStrategy::fastci_prioritize || strategy == ReplayStrategy::fastci_shrink;
}

/// What another tool chose at this commit, run by the history's recorder: its targets are test ids,
/// test files or folders; a recorded test runs when it is one of them or its file is or lies below one.
util::Result<Decision> recorded_selection(const RecordedCommit& commit, const std::string& name) {
  auto it = commit.selections.find(name);
  if (it == commit.selections.end())
    return util::Error("the history records no " + name + " selection for " + commit.commit + " (scripts/record_" +
                       (name == "pytest-testmon" ? "testmon" : "tests_fetcher") + ".py records it)");
  if (it->second.all) return runs(all_ids(commit), name + " runs everything: " + it->second.reason);
  Decision out;
  for (const auto& r : commit.results) {
    std::string file = file_of(r.test_id);
    for (const auto& target : it->second.targets)
      if (r.test_id == target || file == target || file.starts_with(target.ends_with("/") ? target : target + "/")) {
        out.order.push_back(r.test_id);
        break;
      }
  }
  return out;
}

/// testmon-style: tests whose recorded coverage touches a changed line, and tests whose file changed.
Decision coverage_only(const CommitContext& context) {
  const RecordedCommit& commit = *context.recorded;
  if (!context.covered) return runs(all_ids(commit), "no evidence store: everything runs");
  if (auto everything = beyond_python(context)) return *everything;
  std::set<std::string> changed_files;
  for (const auto& d : context.diffs)
    if (!d.new_path.empty()) changed_files.insert(d.new_path);
  Decision out;
  for (const auto& r : commit.results)
    if (context.covered->count(r.test_id) || changed_files.count(file_of(r.test_id))) out.order.push_back(r.test_id);
  return out;
}

/// Every real commit's linked tree (and a few more), so that a mutant replayed after all of them
/// still finds its commit's.
int linked_trees_to_keep(const History& history) {
  auto real = std::count_if(history.commits.begin(), history.commits.end(), [](const auto& c) { return !c.is_mutant(); });
  return 4 + static_cast<int>(real);
}

/// What analyze() is asked for a fastci strategy; the strategies differ only in their variant.
AnalyzeOptions fastci_options(const History& history, const CommitContext& context, const ReplayOptions& options) {
  AnalyzeOptions o;
  o.repository = history.repository;
  o.base = context.recorded->base;
  o.head = context.recorded->commit;
  o.state_dir = options.state_dir;
  o.threads = options.threads;
  o.show_progress = false;
  o.evidence_store = history.evidence_store;
  o.use_evidence = !history.evidence_store.empty();
  o.prioritize.cluster_gpus = history.cluster_gpus;
  o.prioritize.failure_classes = &context.classes;
  o.prioritize.histories = &context.histories;
  o.prioritize.weights = options.weights;
  o.audit_fraction = options.audit_fraction;
  o.linked_trees_kept = linked_trees_to_keep(history);
  return o;
}

PlanVariant variant_of(ReplayStrategy strategy) {
  PlanVariant v;
  v.prune = strategy == ReplayStrategy::fastci_select ? PruneMode::off : PruneMode::safe;
  v.order_by_risk = strategy == ReplayStrategy::fastci_prioritize || strategy == ReplayStrategy::fastci_shrink;
  v.shrink = strategy == ReplayStrategy::fastci_shrink;
  return v;
}

/// The plans of every fastci strategy in `strategies` for one commit, made by one analysis.
util::Result<std::map<ReplayStrategy, Plan>> fastci_plans(const History& history, const CommitContext& context,
                                                          const std::vector<ReplayStrategy>& strategies,
                                                          const ReplayOptions& options, const Indexer& indexer,
                                                          std::optional<CommitIndex>& head) {
  std::vector<ReplayStrategy> fastci;
  std::vector<PlanVariant> variants;
  for (auto s : strategies)
    if (is_fastci(s)) {
      fastci.push_back(s);
      variants.push_back(variant_of(s));
    }
  std::map<ReplayStrategy, Plan> out;
  if (fastci.empty()) return out;
  auto index = indexed_head(context, indexer, head);
  if (!index.ok()) return index.error();
  auto plans = analyze_variants(fastci_options(history, context, options), variants, *index);
  if (!plans.ok()) return plans.error();
  for (std::size_t i = 0; i < fastci.size(); ++i) out.emplace(fastci[i], std::move((*plans)[i]));
  return out;
}

/// What a fastci plan runs, in the recorded tests' ids.
util::Result<Decision> fastci(const CommitContext& context, const Plan& plan) {
  Decision out;
  std::set<std::string> recorded;
  for (const auto& r : context.recorded->results) recorded.insert(r.test_id);
  for (const auto& entry : plan.prioritized.ordered) {
    // Parameters computed at run time (os.listdir(...)) are unknown statically: the plan names the
    // function, and pytest runs every parametrization of it.
    const std::string& id = entry.selected.test.id;
    auto add = [&](const std::string& recorded_id) {
      out.order.push_back(recorded_id);
      out.planned.push_back({recorded_id, entry.features, entry.predicted_seconds, entry.gpus, entry.failure_class.kind});
    };
    if (!recorded.count(id) && id.find('[') == std::string::npos) {
      for (auto it = recorded.lower_bound(id + "["); it != recorded.end() && it->starts_with(id + "["); ++it) add(*it);
      continue;
    }
    add(id);
    if (!entry.shrink_reason.empty()) out.resized[entry.selected.test.id] = {entry.gpus, entry.predicted_seconds};
  }
  for (const auto& entry : plan.prioritized.pruned) {
    const std::string& id = entry.test.id;
    if (recorded.count(id)) ++out.pruned;
    else if (id.find('[') == std::string::npos)
      for (auto it = recorded.lower_bound(id + "["); it != recorded.end() && it->starts_with(id + "["); ++it) ++out.pruned;
  }
  for (const auto& a : plan.audit) {
    const std::string& id = a.test.id;
    if (recorded.count(id)) out.audited.push_back(id);
    else if (id.find('[') == std::string::npos)
      for (auto it = recorded.lower_bound(id + "["); it != recorded.end() && it->starts_with(id + "["); ++it)
        out.audited.push_back(*it);
  }
  if (plan.widened()) out.note = "selection widened (see the plan)";
  return out;
}

/// The audit's share of a row: what it cost, and which of the plan's escapes (failures it skipped)
/// it ran. Audited tests run after the plan and block nothing, so they add no latency.
void score_audit(const Decision& decision, const std::vector<RecordedResult>& results, ReplayRow& row) {
  std::set<std::string> planned(decision.order.begin(), decision.order.end());
  std::set<std::string> audited(decision.audited.begin(), decision.audited.end());
  row.audit_tests = audited.size();
  for (const auto& r : results) {
    if (audited.count(r.test_id)) row.audit_gpu_hours += r.seconds * std::max(r.gpus, 1) / 3600;
    if (!r.failed() || planned.count(r.test_id)) continue;
    ++row.escapes;
    if (audited.count(r.test_id)) ++row.escapes_audited;
  }
}

std::optional<double> retention(const CommitContext& context, const std::vector<std::string>& order) {
  if (!context.covered) return std::nullopt;
  std::set<std::pair<std::string, int>> by_all, by_plan;
  std::set<std::string> recorded;
  for (const auto& r : context.recorded->results) recorded.insert(r.test_id);
  for (const auto& [test, lines] : *context.covered)
    if (recorded.count(test)) by_all.insert(lines.begin(), lines.end());
  for (const auto& id : order)
    if (auto it = context.covered->find(id); it != context.covered->end()) by_plan.insert(it->second.begin(), it->second.end());
  if (by_all.empty()) return std::nullopt;
  return static_cast<double>(by_plan.size()) / static_cast<double>(by_all.size());
}

util::Error history_error(const std::filesystem::path& file, const std::string& what) {
  return util::Error{what, file.string()};
}

}  // namespace

const char* to_string(ReplayStrategy strategy) {
  switch (strategy) {
    case ReplayStrategy::run_all: return "run-all";
    case ReplayStrategy::file_level: return "file-level";
    case ReplayStrategy::coverage_only: return "coverage-only";
    case ReplayStrategy::fastci_select: return "fastci-select";
    case ReplayStrategy::fastci_prune: return "fastci-prune";
    case ReplayStrategy::fastci_prioritize: return "fastci-prioritize";
    case ReplayStrategy::fastci_shrink: return "fastci-shrink";
    case ReplayStrategy::tests_fetcher: return "tests-fetcher";
    case ReplayStrategy::pytest_testmon: return "pytest-testmon";
  }
  return "unknown";
}

std::optional<ReplayStrategy> replay_strategy_named(const std::string& name) {
  for (auto s : {ReplayStrategy::run_all, ReplayStrategy::file_level, ReplayStrategy::coverage_only,
                 ReplayStrategy::fastci_select, ReplayStrategy::fastci_prune, ReplayStrategy::fastci_prioritize,
                 ReplayStrategy::fastci_shrink, ReplayStrategy::tests_fetcher,
                 ReplayStrategy::pytest_testmon})
    if (name == to_string(s)) return s;
  return std::nullopt;
}

util::Result<History> load_history(const std::filesystem::path& file) {
  auto text = util::read_file(file);
  if (!text.ok()) return text.error();
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return history_error(file, "not a JSON object");
  if (j.value("format", "") != "fastci-history/1")
    return history_error(file, "expected \"format\": \"fastci-history/1\"");
  History h;
  auto folder = file.parent_path();
  if (!j.contains("repository") || !j["repository"].is_string())
    return history_error(file, "expected \"repository\": the path of the git repository");
  h.repository = folder / j["repository"].get<std::string>();
  if (j.contains("evidence_store") && j["evidence_store"].is_string()) {
    std::string store = j["evidence_store"].get<std::string>();
    // A relative SQLite path is relative to the history file, like the repository.
    if (!store.empty() && store.find("://") == std::string::npos) store = "sqlite://" + (folder / store).string();
    h.evidence_store = store;
  }
  h.cluster_gpus = j.value("cluster_gpus", 8);
  if (!j.contains("commits") || !j["commits"].is_array()) return history_error(file, "expected \"commits\": [...]");
  for (std::size_t i = 0; i < j["commits"].size(); ++i) {
    const auto& c = j["commits"][i];
    std::string where = "commits[" + std::to_string(i) + "]";
    if (!c.is_object() || !c.contains("commit") || !c["commit"].is_string())
      return history_error(file, where + ": expected \"commit\"");
    RecordedCommit commit;
    commit.commit = c["commit"].get<std::string>();
    commit.base = c.value("base", commit.commit + "~1");
    if (!c.contains("results") || !c["results"].is_array())
      return history_error(file, where + ": expected \"results\": [{\"id\", \"outcome\", \"seconds\", \"gpus\"}]");
    if (c.value("kind", "") == "mutant") {
      commit.mutant_of = c.value("mutant_of", "");
      if (commit.mutant_of.empty()) return history_error(file, where + ": a mutant needs \"mutant_of\"");
      if (c.contains("mutation") && c["mutation"].is_object()) {
        const auto& m = c["mutation"];
        commit.mutation = m.value("file", "?") + ":" + std::to_string(m.value("line", 0)) + " " +
                          m.value("operator", "") + ": " + m.value("original", "") + " -> " + m.value("replacement", "");
      }
      if (c.contains("killed_by") && c["killed_by"].is_array())
        for (const auto& k : c["killed_by"])
          if (k.is_string()) commit.killed_by.push_back(k.get<std::string>());
    }
    if (c.contains("selections") && c["selections"].is_object())
      for (const auto& [name, s] : c["selections"].items()) {
        if (!s.is_object() || !s.contains("mode") || !s["mode"].is_string())
          return history_error(file, where + ".selections." + name + ": expected {\"mode\": \"all\"|\"selected\", \"targets\": [...]}");
        RecordedSelection selection;
        selection.all = s["mode"].get<std::string>() == "all";
        selection.reason = s.value("reason", "");
        if (s.contains("targets") && s["targets"].is_array())
          for (const auto& t : s["targets"])
            if (t.is_string()) selection.targets.push_back(t.get<std::string>());
        commit.selections[name] = std::move(selection);
      }
    for (const auto& r : c["results"]) {
      if (!r.is_object() || !r.contains("id") || !r["id"].is_string() || !r.contains("outcome"))
        return history_error(file, where + ": a result needs \"id\" and \"outcome\"");
      commit.results.push_back({r["id"].get<std::string>(), r["outcome"].get<std::string>(), r.value("seconds", 0.0),
                                r.value("gpus", 1)});
    }
    h.commits.push_back(std::move(commit));
  }
  return h;
}

util::Result<std::vector<ReplayReport>> replay(const History& history, const std::vector<ReplayStrategy>& strategies,
                                               const ReplayOptions& options) {
  auto repo = GitRepository::open(history.repository);
  if (!repo.ok()) return repo.error();
  std::unique_ptr<evidence::Store> store;
  if (!history.evidence_store.empty()) {
    auto opened = evidence::Store::open(history.evidence_store);
    if (!opened.ok()) return opened.error();
    store = std::move(*opened);
  }
  AnalyzeOptions index_options;
  index_options.repository = history.repository;
  index_options.state_dir = options.state_dir;
  index_options.threads = options.threads;
  index_options.show_progress = false;
  index_options.linked_trees_kept = linked_trees_to_keep(history);
  auto cache = open_index_cache(index_options);
  if (!cache.ok()) return cache.error();
  const Indexer indexer{**repo, **cache, index_options};
  std::vector<ReplayReport> reports;
  for (auto s : strategies) {
    reports.push_back({s, {}, is_fastci(s) ? options.audit_fraction : 0});
  }
  // Each test's outcomes before the entry being replayed: the evidence store's runs, then every
  // real commit's recorded run once it is replayed (mutants never landed, so they add none). The
  // classes of failure_class.h decide from these which failures are not the entry's.
  std::map<std::string, std::vector<OutcomeAt>> runs_of;
  if (store) {
    auto outcomes = outcomes_in_store(*store);
    if (!outcomes.ok()) return outcomes.error();
    runs_of = std::move(*outcomes);
  }
  ReachedCode reached(**repo, store.get());
  std::map<std::string, std::set<std::string>> failing_at;  // real commit -> tests failing in its run
  util::Progress progress("replaying commits", history.commits.size());
  for (std::size_t index = 0; index < history.commits.size(); ++index, progress.advance()) {
    const RecordedCommit& commit = history.commits[index];
    auto base = (*repo)->resolve(commit.base);
    if (!base.ok()) return base.error();
    auto head = (*repo)->resolve(commit.commit);
    if (!head.ok()) return head.error();
    CommitContext context;
    context.recorded = &commit;
    context.head = *head;
    context.neighbor = *base;
    if (commit.is_mutant())
      if (auto real = (*repo)->resolve(commit.mutant_of); real.ok()) context.neighbor = *real;
    auto diffs = (*repo)->diff(*base, *head);
    if (!diffs.ok()) return diffs.error();
    context.diffs = std::move(*diffs);
    if (store) {
      auto covered = covered_changed_lines(*store, changed_base_lines(context.diffs));
      if (!covered.ok()) return covered.error();
      context.covered = std::move(*covered);
    }
    std::set<std::string> changed_files;
    for (const auto& d : context.diffs)
      for (const auto* path : {&d.old_path, &d.new_path})
        if (!path->empty()) changed_files.insert(*path);
    for (const auto& r : commit.results) {
      auto runs = runs_of.find(r.test_id);
      if (runs == runs_of.end()) continue;
      auto classified = classify_test(r.test_id, runs->second, *base, reached);
      if (!classified.ok()) return classified.error();
      if (classified->kind != FailureClass::none) context.classes[r.test_id] = std::move(*classified);
      if (std::none_of(runs->second.begin(), runs->second.end(), [](const OutcomeAt& o) { return o.failed; })) continue;
      auto points = history_points(r.test_id, runs->second, changed_files, reached);
      if (!points.ok()) return points.error();
      context.histories[r.test_id] = std::move(*points);
    }
    // A mutant is its real commit plus one fault: what already failed on the real commit is that
    // commit's failure (scored on its own row), not the mutant's.
    const std::set<std::string>* failing_on_real = nullptr;
    if (commit.is_mutant())
      if (auto real = (*repo)->resolve(commit.mutant_of); real.ok())
        if (auto it = failing_at.find(*real); it != failing_at.end()) failing_on_real = &it->second;
    std::vector<RecordedResult> scored = commit.results;
    for (auto& r : scored) {
      if (!r.failed()) continue;
      if (auto it = context.classes.find(r.test_id); it != context.classes.end()) r.outcome = to_string(it->second.kind);
      else if (failing_on_real && failing_on_real->count(r.test_id)) r.outcome = "failed-on-the-real-commit";
    }
    if (!commit.is_mutant())
      for (const auto& r : commit.results) {
        if (r.failed()) runs_of[r.test_id].push_back({*head, true});
        else if (r.outcome == "passed") runs_of[r.test_id].push_back({*head, false});
        if (r.failed()) failing_at[*head].insert(r.test_id);
      }
    // The fastci strategies share one analysis of the commit, made when the first of them is met.
    std::optional<std::map<ReplayStrategy, Plan>> plans;
    std::optional<CommitIndex> head_index;
    for (auto& report : reports) {
      auto start = Clock::now();
      std::optional<double> planned_seconds;  // a fastci plan's own account: the shared analysis and its part
      util::Result<Decision> decision = Decision{};
      switch (report.strategy) {
        case ReplayStrategy::run_all: decision = runs(all_ids(commit), ""); break;
        case ReplayStrategy::file_level: decision = file_level(context, indexer, head_index); break;
        case ReplayStrategy::coverage_only: decision = coverage_only(context); break;
        case ReplayStrategy::tests_fetcher:
        case ReplayStrategy::pytest_testmon: decision = recorded_selection(commit, to_string(report.strategy)); break;
        default: {  // is_fastci
          if (!plans) {
            std::vector<ReplayStrategy> strategies;
            for (const auto& r : reports) strategies.push_back(r.strategy);
            auto made = fastci_plans(history, context, strategies, options, indexer, head_index);
            if (!made.ok()) return made.error();
            plans = std::move(*made);
          }
          const Plan& plan = plans->at(report.strategy);
          decision = fastci(context, plan);
          planned_seconds = plan.timing.total_seconds;
          break;
        }
      }
      if (!decision.ok()) return decision.error();
      ReplayRow row;
      row.commit = commit.commit;
      row.analysis_seconds = report.strategy == ReplayStrategy::run_all ? 0 : planned_seconds.value_or(seconds_since(start));
      // A shrunk test costs its smaller run; its outcome is taken to be the recorded one (the two
      // sizes' evidence was the same).
      std::vector<RecordedResult> costed = scored;
      for (auto& r : costed)
        if (auto it = decision->resized.find(r.test_id); it != decision->resized.end()) {
          r.gpus = it->second.first;
          if (it->second.second > 0) r.seconds = it->second.second;
        }
      row.metrics = measure_order(decision->order, costed, history.cluster_gpus);
      row.planned = std::move(decision->planned);
      row.results = std::move(costed);
      row.coverage_retention = retention(context, decision->order);
      row.note = decision->note;
      row.pruned = decision->pruned;
      score_audit(*decision, row.results, row);
      if (!commit.killed_by.empty()) {
        std::set<std::string> planned(decision->order.begin(), decision->order.end());
        row.mutant_caught = std::any_of(commit.killed_by.begin(), commit.killed_by.end(),
                                        [&](const std::string& id) { return planned.count(id) > 0; });
      }
      report.rows.push_back(std::move(row));
    }
  }
  return reports;
}

std::string fixed(double value, int digits) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << value;
  return out.str();
}

namespace {

std::string optional_fixed(const std::optional<double>& value, int digits) {
  return value ? fixed(*value, digits) : "-";
}

}  // namespace

namespace {

/// One strategy's totals over the real commits or over the mutants, as the tables print them.
struct Totals {
  std::size_t run = 0, total = 0, pruned = 0;
  double latency = 0, gpu_hours = 0, analysis = 0, apfd = 0, apfd_cost = 0, kept = 0;
  int caught = 0, present = 0, scored = 0, with_coverage = 0;
  std::optional<double> mean_apfd() const { return scored ? std::optional<double>(apfd / scored) : std::nullopt; }
  std::optional<double> mean_apfd_cost() const {
    return scored ? std::optional<double>(apfd_cost / scored) : std::nullopt;
  }
  std::optional<double> retention() const {
    return with_coverage ? std::optional<double>(kept / with_coverage) : std::nullopt;
  }
};

Totals totals_of(const History& history, const ReplayReport& report, bool mutants) {
  Totals t;
  for (std::size_t c = 0; c < report.rows.size(); ++c) {
    if (history.commits[c].is_mutant() != mutants) continue;
    const auto& row = report.rows[c];
    t.run += row.metrics.tests_run;
    t.total += row.metrics.tests_total;
    t.pruned += row.pruned;
    t.latency += row.metrics.latency_seconds;
    t.gpu_hours += row.metrics.gpu_hours;
    t.caught += row.metrics.failures_caught;
    t.present += row.metrics.failures_present;
    t.analysis += row.analysis_seconds;
    if (row.metrics.apfd) {
      t.apfd += *row.metrics.apfd;
      t.apfd_cost += *row.metrics.apfd_cost;
      ++t.scored;
    }
    if (row.coverage_retention) {
      t.kept += *row.coverage_retention;
      ++t.with_coverage;
    }
  }
  return t;
}

void totals_row(std::ostringstream& out, const History& history, const ReplayReport& report, bool mutants) {
  Totals t = totals_of(history, report, mutants);
  out << "| " << to_string(report.strategy) << " | " << t.run << " / " << t.total << " | "
      << fixed(t.latency / 3600, 3) << " | " << fixed(t.gpu_hours, 3) << " | " << t.caught << " / " << t.present
      << " | " << optional_fixed(t.mean_apfd(), 3) << " | " << optional_fixed(t.mean_apfd_cost(), 3) << " | "
      << optional_fixed(t.retention(), 3) << " | " << fixed(t.analysis, 2) << " |\n";
}

/// One strategy's audit over every entry, real commits and mutants.
struct AuditTotals {
  std::size_t tests = 0, escapes = 0, escapes_audited = 0;
  double gpu_hours = 0;
};

AuditTotals audit_totals(const ReplayReport& report) {
  AuditTotals t;
  for (const auto& row : report.rows) {
    t.tests += row.audit_tests;
    t.gpu_hours += row.audit_gpu_hours;
    t.escapes += row.escapes;
    t.escapes_audited += row.escapes_audited;
  }
  return t;
}

/// The audit's table, for the strategies that planned with --audit-skipped.
void write_audit_table(std::ostringstream& out, const std::vector<ReplayReport>& reports) {
  bool any = std::any_of(reports.begin(), reports.end(), [](const ReplayReport& r) { return r.audit_fraction > 0; });
  if (!any) return;
  out << "\nAudit of the skips over every commit and mutant (--audit-skipped; escapes: failures a plan skipped, "
         "known-failing and flaky tests not counted):\n\n"
      << "| strategy | share | audited test runs | audit GPU-hours | escapes | escapes the audit ran |\n"
      << "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& report : reports) {
    if (report.audit_fraction <= 0) continue;
    AuditTotals t = audit_totals(report);
    out << "| " << to_string(report.strategy) << " | " << fixed(100 * report.audit_fraction, 1) << "% | " << t.tests
        << " | " << fixed(t.gpu_hours, 3) << " | " << t.escapes << " | " << t.escapes_audited << " |\n";
  }
}

const char* kTotalsHeader =
    "| strategy | tests run | latency (h) | GPU-hours | failures caught | mean APFD | mean APFDc | "
    "coverage retention | analysis (s) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";

}  // namespace

std::string format_replay(const History& history, const std::vector<ReplayReport>& reports) {
  std::ostringstream out;
  std::size_t mutants = 0, killable = 0;
  for (const auto& c : history.commits) {
    mutants += c.is_mutant();
    killable += !c.killed_by.empty();
  }
  out << "Replay of " << history.commits.size() - mutants << " commits on " << history.cluster_gpus << " GPUs\n\n"
      << kTotalsHeader;
  for (const auto& report : reports) totals_row(out, history, report, false);
  if (mutants > 0) {
    out << "\n" << mutants << " mutants (" << killable << " killed by at least one recorded test)\n\n"
        << "| strategy | mutants caught | missed |\n|---|---:|---|\n";
    for (const auto& report : reports) {
      int caught = 0;
      std::string missed;
      for (std::size_t c = 0; c < report.rows.size(); ++c) {
        if (!report.rows[c].mutant_caught) continue;
        if (*report.rows[c].mutant_caught) ++caught;
        else missed += (missed.empty() ? "" : "; ") + history.commits[c].mutation;
      }
      out << "| " << to_string(report.strategy) << " | " << caught << " / " << killable << " | "
          << (missed.empty() ? "-" : missed) << " |\n";
    }
    out << "\nOn the mutants (killed or not; failures of known-failing and flaky tests, and those already "
           "on the real commit, not counted):\n\n"
        << kTotalsHeader;
    for (const auto& report : reports) totals_row(out, history, report, true);
  }
  write_audit_table(out, reports);
  out << "\n| commit | strategy | tests | latency (s) | GPU-h | caught | first failure (s) | APFD | APFDc | "
         "coverage retention | note |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (std::size_t c = 0; c < history.commits.size(); ++c)
    for (const auto& report : reports) {
      const auto& row = report.rows[c];
      std::string name = row.commit.substr(0, 10);
      if (history.commits[c].is_mutant()) name = "mutant of " + history.commits[c].mutant_of.substr(0, 10);
      out << "| " << name << " | " << to_string(report.strategy) << " | " << row.metrics.tests_run
          << " | " << fixed(row.metrics.latency_seconds, 1) << " | " << fixed(row.metrics.gpu_hours, 4) << " | "
          << row.metrics.failures_caught << "/" << row.metrics.failures_present << " | "
          << optional_fixed(row.metrics.time_to_first_failure, 1) << " | " << optional_fixed(row.metrics.apfd, 3)
          << " | " << optional_fixed(row.metrics.apfd_cost, 3) << " | " << optional_fixed(row.coverage_retention, 3)
          << " | " << row.note << " |\n";
    }
  return out.str();
}

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json json_number(const std::optional<double>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

/// A strategy's totals over the real commits or the mutants, in the JSON's units.
ordered_json totals_json(const Totals& t) {
  ordered_json out;
  out["latency_hours"] = t.latency / 3600;
  out["gpu_hours"] = t.gpu_hours;
  out["tests_run"] = t.run;
  out["tests_total"] = t.total;
  out["pruned"] = t.pruned;
  out["failures_total"] = t.present;
  out["failures_caught"] = t.caught;
  out["mean_apfd"] = json_number(t.mean_apfd());
  out["mean_apfdc"] = json_number(t.mean_apfd_cost());
  out["retention"] = json_number(t.retention());
  out["analysis_seconds"] = t.analysis;
  return out;
}

/// The rows APFD and APFDc are averaged over in the JSON: plans of at least this many tests that
/// catch a failure (a plan of one failing test scores 0.5 whatever its order).
constexpr std::size_t kApfdMinimumTests = 5;

/// Median over every entry whose plan catches a failure of the simulated time until the first one
/// ends; null when no plan catches one. Of an even count, the mean of the middle two.
ordered_json median_first_failure(const ReplayReport& report) {
  std::vector<double> times;
  for (const auto& row : report.rows)
    if (row.metrics.failures_caught > 0 && row.metrics.time_to_first_failure)
      times.push_back(*row.metrics.time_to_first_failure);
  if (times.empty()) return nullptr;
  std::sort(times.begin(), times.end());
  std::size_t n = times.size();
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

}  // namespace

std::string format_replay_json(const History& history, const std::vector<ReplayReport>& reports) {
  ordered_json out;
  std::size_t real = 0, mutants = 0, killable = 0;
  std::set<std::string> tests;
  for (const auto& c : history.commits) {
    if (c.is_mutant()) {
      ++mutants;
      killable += !c.killed_by.empty();
    } else {
      ++real;
    }
    for (const auto& r : c.results) tests.insert(r.test_id);
  }
  out["format"] = "fastci-replay/1";
  out["cluster_gpus"] = history.cluster_gpus;
  out["commits"] = real;
  out["tests"] = tests.size();
  out["mutants"] = {{"total", mutants}, {"killed", killable}};
  ordered_json strategies = ordered_json::object();
  for (const auto& report : reports) {
    Totals on_commits = totals_of(history, report, false);
    ordered_json s = totals_json(on_commits);
    // APFD over every commit or mutant whose plan has enough tests and catches a failure.
    double apfd = 0, apfd_cost = 0;
    std::size_t scored = 0, caught = 0;
    ordered_json missed = ordered_json::array();
    for (std::size_t c = 0; c < report.rows.size(); ++c) {
      const auto& row = report.rows[c];
      if (row.metrics.apfd && row.metrics.tests_run >= kApfdMinimumTests && row.metrics.failures_caught > 0) {
        apfd += *row.metrics.apfd;
        apfd_cost += *row.metrics.apfd_cost;
        ++scored;
      }
      if (!row.mutant_caught) continue;
      if (*row.mutant_caught) ++caught;
      else missed.push_back({{"commit", history.commits[c].commit}, {"mutant_of", history.commits[c].mutant_of},
                             {"mutation", history.commits[c].mutation}});
    }
    s["mean_apfd"] = scored ? ordered_json(apfd / scored) : ordered_json(nullptr);
    s["mean_apfdc"] = scored ? ordered_json(apfd_cost / scored) : ordered_json(nullptr);
    s["apfd_rows"] = scored;
    s["median_first_failure_seconds"] = median_first_failure(report);
    s["mutants_killed"] = killable;
    s["mutants_caught"] = caught;
    s["mutants_missed"] = missed;
    s["on_mutants"] = totals_json(totals_of(history, report, true));
    if (report.audit_fraction > 0) {
      AuditTotals a = audit_totals(report);
      s["audit"] = {{"fraction", report.audit_fraction}, {"tests", a.tests}, {"gpu_hours", a.gpu_hours},
                    {"escapes", a.escapes}, {"escapes_audited", a.escapes_audited}};
    }
    // Every entry on its own, so that subsets (the Python-only commits, those with pruning) can be
    // totalled from the JSON instead of from the Markdown tables.
    ordered_json rows = ordered_json::array();
    for (std::size_t c = 0; c < report.rows.size(); ++c) {
      const auto& row = report.rows[c];
      ordered_json r;
      r["commit"] = row.commit;
      r["mutant_of"] = history.commits[c].mutant_of.empty() ? ordered_json(nullptr)
                                                             : ordered_json(history.commits[c].mutant_of);
      r["tests_run"] = row.metrics.tests_run;
      r["pruned"] = row.pruned;
      r["latency_hours"] = row.metrics.latency_seconds / 3600;
      r["gpu_hours"] = row.metrics.gpu_hours;
      r["failures_total"] = row.metrics.failures_present;
      r["failures_caught"] = row.metrics.failures_caught;
      r["mutant_caught"] = row.mutant_caught ? ordered_json(*row.mutant_caught) : ordered_json(nullptr);
      r["first_failure_seconds"] = json_number(row.metrics.time_to_first_failure);
      r["apfd"] = json_number(row.metrics.apfd);
      r["apfdc"] = json_number(row.metrics.apfd_cost);
      r["note"] = row.note;
      if (report.audit_fraction > 0) {
        r["audit_tests"] = row.audit_tests;
        r["escapes"] = row.escapes;
        r["escapes_audited"] = row.escapes_audited;
      }
      rows.push_back(std::move(r));
    }
    s["rows"] = rows;
    strategies[to_string(report.strategy)] = s;
  }
  out["strategies"] = strategies;
  return out.dump(2) + "\n";
}

}  // namespace fastci::planner
