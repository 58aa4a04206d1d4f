#include "planner/analyze.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "callgraph/native_index.h"
#include "evidence/store/store.h"
#include "planner/data_files.h"
#include "planner/evidence_select.h"
#include "planner/failure_class.h"
#include "planner/include_changes.h"
#include "planner/kernel_evidence.h"
#include "planner/shrink.h"
#include "planner/unread_headers.h"
#include "util/state_dir.h"

namespace fastci::planner {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string evidence_location(const AnalyzeOptions& options, const Config& config) {
  if (!options.evidence_store.empty()) return options.evidence_store;
  if (!config.store.empty()) return config.store;
  auto path = evidence::Store::default_path(options.repository);
  return std::filesystem::exists(path) ? path.string() : std::string();
}

/// The evidence store to use, or nullptr when there is none (static selection only).
util::Result<std::unique_ptr<evidence::Store>> open_evidence_store(const AnalyzeOptions& options,
                                                                   const Config& config) {
  if (!options.use_evidence) return std::unique_ptr<evidence::Store>();
  std::string url = evidence_location(options, config);
  if (url.empty()) return std::unique_ptr<evidence::Store>();
  auto store = evidence::Store::open(url);
  if (!store.ok()) return store.error();
  return std::move(*store);
}

}  // namespace

util::Result<std::unique_ptr<callgraph::IndexCache>> open_index_cache(const AnalyzeOptions& options) {
  if (!options.use_cache) return callgraph::IndexCache::disabled();
  auto dir = util::state_dir(options.repository, options.state_dir);
  return callgraph::IndexCache::open(dir / "index.db", callgraph::frontend_version());
}

namespace {

/// Frees every file's edges, capacity included: for facts whose edges a call graph now holds.
void release_edges(frontend::RepositoryFacts& facts) {
  for (auto& f : facts.files) std::vector<frontend::Edge>().swap(f.edges);
}

util::Result<std::vector<callgraph::SourceFile>> source_files(const GitRepository& repo, const std::string& commit) {
  auto files = repo.list_files(commit);
  if (!files.ok()) return files.error();
  std::vector<callgraph::SourceFile> sources;
  sources.reserve(files->size());
  for (const auto& f : *files) {
    std::string blob = f.blob_id;
    sources.push_back({f.path, blob, [&repo, blob] { return repo.read_blob(blob); }, f.is_symlink});
  }
  return sources;
}

callgraph::IndexOptions index_options(const AnalyzeOptions& options) {
  auto state = util::state_dir(options.repository, options.state_dir);
  std::error_code ignored;
  std::filesystem::create_directories(state, ignored);
  callgraph::IndexOptions out{options.threads, options.show_progress, state, options.free_index};
  out.linked_trees_kept = options.linked_trees_kept;
  return out;
}

/// Base-side facts of changed C++/CUDA files: the changed units, and for a header the units that
/// include it at head, parsed at base.
util::Status add_native_base_facts(const GitRepository& repo, const std::string& base,
                                   const std::vector<FileDiff>& diffs, const callgraph::IndexResult& head,
                                   callgraph::IndexCache& cache, const AnalyzeOptions& options,
                                   std::map<std::string, frontend::FileFacts>& base_files) {
  std::set<std::string> units, wanted;
  for (const auto& d : diffs) {
    if (d.status == FileStatus::added || !callgraph::is_native_source(d.old_path)) continue;
    wanted.insert(d.old_path);
    if (callgraph::is_translation_unit(d.old_path)) units.insert(d.old_path);
    // A renamed header is read at head under its new name by the units that read it at base.
    for (const auto* path : {&d.old_path, &d.new_path})
      if (auto it = head.includers.find(*path); it != head.includers.end())
        units.insert(it->second.begin(), it->second.end());
  }
  if (units.empty() || !callgraph::native_frontend_available()) return {};
  auto files = source_files(repo, base);
  if (!files.ok()) return files.error();
  for (auto& f : callgraph::native_facts_of_units(*files, units, cache, index_options(options), head.extensions))
    // The units reading a changed header too: what they read at base tells what a changed include brings.
    if (wanted.contains(f.path) || units.contains(f.path)) base_files[f.path] = std::move(f);
  return {};
}

/// A native_units widening made concrete: every symbol of the units that read the file (and of
/// the file itself) counts as changed, so the graph reaches the tests through their bindings.
void add_native_unit_symbols(const callgraph::IndexResult& head, ChangeSet& changes) {
  std::set<std::string> present;
  for (const auto& s : changes.symbols) present.insert(s.id);
  for (const auto& w : changes.widenings) {
    if (w.scope != Widening::Scope::native_units) continue;
    std::set<std::string> files = {w.file};
    if (auto it = head.includers.find(w.file); it != head.includers.end()) files.insert(it->second.begin(), it->second.end());
    for (const auto& path : files) {
      const auto* facts = head.find(path);
      if (!facts) continue;
      for (const auto& s : facts->symbols)
        if (present.insert(s.id).second)
          changes.symbols.push_back({s.id, SymbolChange::changed, s.kind, s.language, s.qualified_name, s.file,
                                     s.first_line, s.last_line, {}});
    }
  }
}

/// A unit Clang reported errors in may have lost calls in the functions holding them (a callee of an
/// unknown type is no edge). Where the change is in a file such a unit reads, each of those
/// functions counts as changed, named in a widening; a unit with more errors than are kept widens
/// whole.
void add_functions_with_errors(const callgraph::IndexResult& head, ChangeSet& changes) {
  std::set<std::string> changed_files, present;
  for (const auto& f : changes.files)
    if (f.kind == FileKind::native && !f.symbols.empty()) changed_files.insert(f.path);
  if (changed_files.empty()) return;
  for (const auto& s : changes.symbols) present.insert(s.id);
  std::set<std::string> affected;
  for (const auto& path : changed_files) {
    if (callgraph::is_translation_unit(path)) affected.insert(path);
    if (auto it = head.includers.find(path); it != head.includers.end()) affected.insert(it->second.begin(), it->second.end());
  }
  for (const auto& unit : affected) {
    const auto* facts = head.find(unit);
    if (!facts) continue;
    std::vector<const frontend::Diagnostic*> errors;
    for (const auto& d : facts->diagnostics)
      if (d.severity == frontend::Diagnostic::Severity::error && d.line > 0) errors.push_back(&d);
    if (errors.empty()) continue;
    if (errors.size() >= static_cast<std::size_t>(frontend::kKeptNativeErrors)) {
      changes.widenings.push_back({Widening::Scope::native_units, unit,
                                   std::to_string(errors.size()) + "+ Clang errors in a unit reading changed code (first: " +
                                       errors.front()->file + ":" + std::to_string(errors.front()->line) +
                                       "): which functions lost calls is not known, so the unit counts as changed",
                                   {}});
      continue;
    }
    for (const auto* d : errors) {
      const auto* file = head.find(d->file);
      if (!file) continue;
      const frontend::Symbol* inner = nullptr;
      for (const auto& s : file->symbols) {
        bool code = s.kind == frontend::SymbolKind::function || s.kind == frontend::SymbolKind::method ||
                    s.kind == frontend::SymbolKind::kernel;
        if (code && s.first_line <= d->line && d->line <= s.last_line &&
            (!inner || s.last_line - s.first_line < inner->last_line - inner->first_line))
          inner = &s;
      }
      if (!inner || !present.insert(inner->id).second) continue;
      changes.symbols.push_back({inner->id, SymbolChange::changed, inner->kind, inner->language, inner->qualified_name,
                                 inner->file, inner->first_line, inner->last_line, {}});
      changes.widenings.push_back({Widening::Scope::symbol, d->file,
                                   "Clang could not resolve line " + std::to_string(d->line) + " of " + inner->qualified_name +
                                       " (" + d->message.substr(0, 80) + "), in a unit reading changed code: its calls may "
                                       "reach the change, so it counts as changed",
                                   inner->id});
    }
  }
}

/// A changed macro named outside every declaration (in an `#if`, or in a branch the guessed flags
/// left inactive, which the real build may compile) has expansions no parse saw: every unit reading
/// that file counts as changed, said with the line.
void add_macros_used_outside_code(const callgraph::CallGraph& graph, ChangeSet& changes) {
  std::set<std::string> said;
  const auto symbols = changes.symbols;  // widening adds no symbols; the copy keeps the loop simple
  for (const auto& s : symbols) {
    if (s.kind != frontend::SymbolKind::declaration || !s.id.starts_with("cpp-macro:") || s.change == SymbolChange::deleted)
      continue;
    auto v = graph.find(s.id);
    if (!v) continue;
    for (const auto& e : graph.dependents(*v)) {
      const auto& user = graph.vertex(e.from).symbol;
      if (e.kind != frontend::EdgeKind::uses || user.kind != frontend::SymbolKind::module) continue;
      // `#ifndef X` right above `#define X` in X's own file: an include guard, which only keeps the
      // file from being read twice; a new header's guard is no reason to widen.
      if (user.file == s.file && e.line == s.first_line - 1) continue;
      if (!said.insert(user.file).second) continue;
      changes.widenings.push_back({Widening::Scope::native_units, user.file,
                                   "changed macro " + s.qualified_name + " is named at line " + std::to_string(e.line) +
                                       " outside the code Clang compiled (an #if, or a branch the guessed flags leave "
                                       "inactive): every unit that reads the file counts as changed",
                                   {}});
    }
  }
}

/// A changed name that module-level code reads while the module imports (`REGISTRY.append(X)`),
/// directly or through other names, changes what every importer of that module sees: a widening,
/// said with the reading line, not a silent "everything" through the graph.
void add_import_time_readers(const callgraph::CallGraph& graph, ChangeSet& changes) {
  std::set<std::pair<std::string, int>> said;
  for (const auto& s : changes.symbols) {
    if (s.kind != frontend::SymbolKind::variable || s.change == SymbolChange::deleted) continue;
    auto start = graph.find(s.id);
    if (!start) continue;
    std::vector<callgraph::VertexId> queue{*start};
    std::set<callgraph::VertexId> seen{*start};
    for (std::size_t i = 0; i < queue.size() && i < 10000; ++i)
      for (const auto& e : graph.dependents(queue[i])) {
        if (e.kind != frontend::EdgeKind::read || !seen.insert(e.from).second) continue;
        const auto& reader = graph.vertex(e.from).symbol;
        if (reader.kind == frontend::SymbolKind::variable) queue.push_back(e.from);
        if (reader.kind != frontend::SymbolKind::module || !said.insert({reader.id, e.line}).second) continue;
        changes.widenings.push_back({Widening::Scope::importers, std::string(e.file),
                                     s.qualified_name + " is read by module-level code at line " + std::to_string(e.line) +
                                         " that runs on import: every test that imports " + reader.qualified_name +
                                         " is selected",
                                     reader.id});
      }
  }
}

/// One CPU collection over the test files that import a module whose imports changed and that run
/// no selected test (a selected test's run collects its file anyway).
std::vector<CollectionCheck> collection_checks(const ChangeSet& changes, const callgraph::CallGraph& graph,
                                               const Selection& selection) {
  if (changes.imports.empty()) return {};
  std::set<std::string> running;
  for (const auto& s : selection.selected) running.insert(s.test.file);
  std::vector<std::string> modules;
  CollectionCheck check;
  for (const auto& i : changes.imports) {
    modules.push_back(i.module);
    const auto& name = graph.find(i.variable) ? graph.vertex(*graph.find(i.variable)).symbol.qualified_name : i.variable;
    check.reasons.push_back(i.file + ":" + std::to_string(i.line) + " imports " + name.substr(name.rfind('.') + 1) +
                            " (added or changed): its import-time effect shows at collection");
  }
  std::set<std::string> files;
  for (const auto& hit : callgraph::tests_reaching(graph, modules)) {
    const auto& file = graph.vertex(hit.test).symbol.file;
    if (!running.count(file)) files.insert(file);
  }
  if (files.empty()) return {};
  check.files.assign(files.begin(), files.end());
  return {check};
}

}  // namespace

util::Result<CommitIndex> index_commit(const GitRepository& repo, const std::string& commit,
                                       callgraph::IndexCache& cache, const AnalyzeOptions& options,
                                       const std::string& neighbor) {
  auto sources = source_files(repo, commit);
  if (!sources.ok()) return sources.error();
  auto start = Clock::now();
  CommitIndex result;
  result.commit = commit;
  auto indexing = index_options(options);
  if (!neighbor.empty() && neighbor != commit)
    indexing.neighbor = [&repo, &neighbor] {
      auto files = source_files(repo, neighbor);
      return files.ok() ? std::move(*files) : std::vector<callgraph::SourceFile>{};
    };
  result.index = callgraph::index_repository(*sources, cache, indexing);
  result.graph = callgraph::CallGraph::build(result.index.facts);
  result.seconds = seconds_since(start);
  return result;
}

util::Result<Config> load_config(const GitRepository& repo, const std::string& commit) {
  for (const char* name : {"fastci.toml", "pyproject.toml"}) {
    auto text = repo.read_file(commit, name);
    if (!text.ok()) continue;
    auto config = parse_config(*text, name);
    if (!config.ok()) return config.error();
    if (config->source != "defaults" || std::string(name) == "fastci.toml") return config;
  }
  return default_config();
}

/// data_files.h over the head tree, read only where a changed file is of unknown kind.
util::Status map_data_files_at(const GitRepository& repo, const std::string& head, const FactsLookup& head_facts,
                               ChangeSet& changes) {
  if (std::none_of(changes.files.begin(), changes.files.end(), [](const auto& f) { return f.kind == FileKind::unknown; }))
    return {};
  auto files = repo.list_files(head);
  if (!files.ok()) return files.error();
  constexpr std::size_t kLargestSearched = 1 << 20;  // data blobs, not files naming other files
  std::map<std::string, std::string> blobs;
  TreeSources tree;
  for (const auto& f : *files)
    if (!f.is_symlink && f.size <= kLargestSearched) {
      tree.paths.push_back(f.path);
      blobs[f.path] = f.blob_id;
    }
  std::map<std::string, std::optional<std::string>> texts;
  tree.read = [&](const std::string& path) -> const std::string* {
    auto [it, fresh] = texts.try_emplace(path);
    if (fresh)
      if (auto text = repo.read_blob(blobs[path]); text.ok()) it->second = std::move(*text);
    return it->second ? &*it->second : nullptr;
  };
  map_data_files(tree, head_facts, changes);
  return {};
}

const char* to_string(DiffMode mode) { return mode == DiffMode::tree ? "tree" : "merge-base"; }

util::Result<Plan> analyze(const AnalyzeOptions& options) {
  auto plans = analyze_variants(options, {{options.prioritize.prune, options.prioritize.order_by_risk, options.shrink}});
  if (!plans.ok()) return plans.error();
  return std::move(plans->front());
}

util::Result<std::vector<Plan>> analyze_variants(const AnalyzeOptions& options, const std::vector<PlanVariant>& variants,
                                                 const CommitIndex* given_head) {
  auto start = Clock::now();
  auto repo = GitRepository::open(options.repository);
  if (!repo.ok()) return repo.error();
  auto target = (*repo)->resolve(options.base);
  if (!target.ok()) return target.error();
  auto head = (*repo)->resolve(options.head);
  if (!head.ok()) return head.error();
  auto base = options.diff == DiffMode::merge_base ? (*repo)->merge_base(*target, *head) : target;
  if (!base.ok()) return base.error();
  // The configuration comes from the target branch: a pull request cannot narrow its own selection.
  auto config = load_config(**repo, *target);
  if (!config.ok()) return config.error();
  auto diffs = (*repo)->diff(*base, *head);
  if (!diffs.ok()) return diffs.error();
  auto cache = open_index_cache(options);
  if (!cache.ok()) return cache.error();

  auto index_start = Clock::now();
  std::optional<CommitIndex> own_head;
  double given_seconds = 0;  // indexing done before this call, counted as this analysis's
  if (!given_head || given_head->commit != *head) {
    auto indexed = index_commit(**repo, *head, **cache, options, *base);
    if (!indexed.ok()) return indexed.error();
    own_head = std::move(*indexed);
  } else {
    given_seconds = given_head->seconds;
  }
  const CommitIndex* head_index = own_head ? &*own_head : given_head;

  // Base-side facts of changed files only: enough to tell changed, added and deleted symbols.
  std::map<std::string, frontend::FileFacts> base_files;
  std::set<std::string> changed_paths;
  for (const auto& d : *diffs) {
    changed_paths.insert(d.old_path);
    changed_paths.insert(d.new_path);
    if (d.status == FileStatus::added || !callgraph::is_indexed_source(d.old_path)) continue;
    auto text = (*repo)->read_file(*base, d.old_path);
    if (text.ok()) base_files.emplace(d.old_path, callgraph::parse_file(d.old_path, *text));
  }
  if (auto status = add_native_base_facts(**repo, *base, *diffs, head_index->index, **cache, options, base_files);
      !status)
    return status.error();
  Plan plan;
  plan.repository = std::filesystem::absolute(options.repository).lexically_normal().string();
  plan.base_ref_commit = *target;
  plan.diff_mode = to_string(options.diff);
  plan.config_source = config->source;
  plan.timing.index_seconds = seconds_since(index_start) + given_seconds;
  plan.timing.link_seconds = head_index->index.link_seconds;
  plan.timing.native_seconds = head_index->index.native_seconds;
  plan.timing.files_indexed = head_index->index.files;
  plan.timing.files_parsed = head_index->index.parsed;
  plan.timing.linked_from_cache = head_index->index.linked_from_cache;
  plan.timing.linked_from_base = head_index->index.linked_from_neighbor;
  plan.timing.native_units = head_index->index.native_units;
  plan.timing.native_units_parsed = head_index->index.native_parsed;
  plan.timing.python_native_links = head_index->index.python_to_native_links;
  const FactsLookup base_facts = [&](const std::string& path) -> const frontend::FileFacts* {
    auto it = base_files.find(path);
    return it == base_files.end() ? nullptr : &it->second;
  };
  const FactsLookup head_facts = [&](const std::string& path) { return head_index->index.find(path); };
  plan.changes = build_change_set(*base, *head, *diffs, base_facts, head_facts, *config);
  if (auto mapped = map_data_files_at(**repo, *head, head_facts, plan.changes); !mapped) return mapped.error();
  // The code reading a changed data file did not change itself: its base facts are its head facts,
  // which lets evidence rule out the tests that never ran it.
  if (const auto readers = data_file_readers(plan.changes); !readers.empty())
    for (const auto& s : plan.changes.symbols)
      if (readers.count(s.id) && !base_files.count(s.file) && !changed_paths.count(s.file))
        if (const auto* facts = head_facts(s.file)) base_files.emplace(s.file, *facts);
  map_include_changes(base_facts, head_facts, head_index->index.includers, head_index->graph, plan.changes);
  {
    std::vector<const frontend::FileFacts*> units;
    for (const auto& f : head_index->index.facts.files)
      if (callgraph::is_translation_unit(f.path)) units.push_back(&f);
    place_unread_headers(units, plan.changes);
  }
  add_functions_with_errors(head_index->index, plan.changes);
  add_macros_used_outside_code(head_index->graph, plan.changes);
  add_native_unit_symbols(head_index->index, plan.changes);
  add_import_time_readers(head_index->graph, plan.changes);

  // The head's edges were read into its graph and, for the changed files, into the change set: an
  // index made for this analysis alone frees them (about 85 MB for Megatron-LM's 1,344 files) before
  // selection and the plan allocate, where the cold peak now is.
  if (own_head) release_edges(own_head->index.facts);

  // Deleted symbols are found from the base commit's graph: their old callers are what breaks.
  std::optional<CommitIndex> base_index;
  for (const auto& s : plan.changes.symbols)
    if (s.change == SymbolChange::deleted) {
      auto indexed = index_commit(**repo, *base, **cache, options);
      if (!indexed.ok()) return indexed.error();
      base_index = std::move(*indexed);
      break;
    }

  auto select_start = Clock::now();
  auto tests = head_index->index.tests();
  SelectionInput input{&plan.changes, &head_index->graph, base_index ? &base_index->graph : nullptr,
                       &tests, &*config};
  plan.selection = select_tests(input);
  plan.options = options.prioritize;
  std::map<std::string, TestEvidenceSummary> evidence;
  CostTable costs;
  auto store = open_evidence_store(options, *config);
  if (!store.ok()) return store.error();
  if (*store) {
    plan.evidence_store = evidence_location(options, *config);
    LineMapper lines(**repo, *base);
    auto base_symbol = [&](const std::string& id) -> const frontend::Symbol* {
      for (const auto& [path, facts] : base_files)
        for (const auto& s : facts.symbols)
          if (s.id == id) return &s;
      return nullptr;
    };
    std::map<std::string, std::optional<std::string>> sources;
    auto base_source = [&](const std::string& path) -> const std::string* {
      auto [it, fresh] = sources.try_emplace(path);
      if (fresh)
        if (auto text = (*repo)->read_file(*base, path); text.ok()) it->second = std::move(*text);
      return it->second ? &*it->second : nullptr;
    };
    auto kernels = [&](const std::string& id) { return kernels_calling(head_index->graph, id); };
    auto refined =
        refine_with_evidence(plan.selection, plan.changes, base_symbol, base_source, *store.value(), lines, kernels);
    plan.selection = std::move(refined.selection);
    evidence = std::move(refined.evidence);
    plan.notes = std::move(refined.notes);
    if (auto latest = (*store)->latest_results(); latest.ok())
      for (const auto& r : *latest) {
        if (r.duration_seconds) costs.seconds[r.test_id] = *r.duration_seconds;
        if (r.gpus > 0) costs.gpus[r.test_id] = r.gpus;
      }
  }
  // Counted after evidence, which may have selected some of them.
  if (std::size_t n = skipped_importing_changes(plan.selection); n > 0)
    plan.notes.push_back(std::to_string(n) + " skipped tests import a module on a call path to a changed symbol but have no such path themselves"
                         + (plan.evidence_store.empty() ? "" : " or evidence covering it") +
                         ": a call resolved only at run time (factories, module specs) could still reach it. "
                         "Evidence from the pytest plugin settles these; `fastci explain` names each.");
  if (std::size_t n = skipped_for_dead_name_matches(plan.selection); n > 0)
    plan.notes.push_back(std::to_string(n) + " skipped tests reach a changed symbol only through a read or call of "
                         "`.name` on a value of unknown type matched to a member of a class defined inside a "
                         "function that they never run, so they cannot hold one; `fastci explain` names each.");
  int changed_lines = 0;
  for (const auto& f : plan.changes.files) changed_lines += f.lines_added + f.lines_removed;
  std::optional<std::map<std::string, ShrinkDecision>> decided_shrinks;  // made once, for the variants that shrink
  // Tests failing where the change starts, or flipping at equal code, are not the change's risk:
  // with risk ordering they run in a lane of their own, last (docs/risk.md).
  std::map<std::string, FailureClassification> failure_classes;
  if (*store) {
    std::vector<std::string> ids;
    for (const auto& s : plan.selection.selected) ids.push_back(s.test.id);
    auto classified = classify_from_store(**store, **repo, *base, ids);
    if (!classified.ok()) return classified.error();
    failure_classes = std::move(*classified);
  }
  auto kinds = change_kinds(plan.changes.symbols, head_index->graph, base_index ? &base_index->graph : nullptr);
  plan.collection_checks = collection_checks(plan.changes, head_index->graph, plan.selection);
  plan.audit_fraction = options.audit_fraction;
  plan.audit = sample_audit(plan.selection, plan.changes.head, options.audit_fraction);
  plan.symbols = head_index->graph.vertex_count();
  plan.edges = head_index->graph.edge_count();
  // Clang's own errors stay with the unit's facts; the plan carries one line per unit (below).
  for (const auto& f : head_index->index.facts.files)
    for (const auto& d : f.diagnostics)
      if (d.severity == frontend::Diagnostic::Severity::error && f.language == frontend::Language::python)
        plan.diagnostics.push_back(d);
  for (const auto& d : head_index->index.facts.diagnostics) plan.diagnostics.push_back(d);
  const double shared_select_seconds = seconds_since(select_start);
  const double shared_seconds = seconds_since(start) + given_seconds;

  std::vector<Plan> plans;
  const std::map<std::string, ShrinkDecision> no_shrinks;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const PlanVariant& variant = variants[i];
    auto own_start = Clock::now();
    const std::map<std::string, ShrinkDecision>* shrinks = &no_shrinks;
    if (*store && variant.shrink) {
      if (!decided_shrinks) {
        std::vector<frontend::Test> planned;
        for (const auto& s : plan.selection.selected) planned.push_back(s.test);
        auto decided = decide_shrinks(planned, **store, shrink_comparison_functions(plan.changes));
        if (!decided.ok()) return decided.error();
        decided_shrinks = std::move(*decided);
      }
      shrinks = &*decided_shrinks;
    }
    auto prioritize_options = options.prioritize;
    prioritize_options.prune = variant.prune;
    prioritize_options.order_by_risk = variant.order_by_risk;
    prioritize_options.shrinks = shrinks;
    prioritize_options.failure_classes = &failure_classes;
    prioritize_options.quarantine = config->quarantine;
    prioritize_options.change_kinds = &kinds;
    // The last variant takes the shared plan itself: one variant (analyze()) copies nothing.
    Plan& out = i + 1 == variants.size() ? plans.emplace_back(std::move(plan)) : plans.emplace_back(plan);
    out.options.prune = variant.prune;
    out.options.order_by_risk = variant.order_by_risk;
    out.prioritized = prioritize(out.selection, out.selection.skipped, evidence, costs, changed_lines, prioritize_options);
    const double own_seconds = seconds_since(own_start);
    out.timing.select_seconds = shared_select_seconds + own_seconds;
    out.timing.total_seconds = shared_seconds + own_seconds;
  }
  if (!options.free_index) {
    if (own_head) new CommitIndex(std::move(*own_head));  // released by the exit, not piece by piece
    if (base_index) new CommitIndex(std::move(*base_index));
  }
  return plans;
}

}  // namespace fastci::planner
