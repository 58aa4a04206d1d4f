#include "planner/select.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "callgraph/live_name_matches.h"
#include "planner/data_files.h"

namespace fastci::planner {

std::size_t skipped_for_dead_name_matches(const Selection& selection) {
  return static_cast<std::size_t>(std::count_if(selection.skipped.begin(), selection.skipped.end(), [](const SkippedTest& t) {
    return t.reason.starts_with(kOnlyDeadNameMatches);
  }));
}

std::size_t skipped_importing_changes(const Selection& selection) {
  return static_cast<std::size_t>(std::count_if(selection.skipped.begin(), selection.skipped.end(), [](const SkippedTest& t) {
    return t.reason.starts_with(kImportsWithoutPath);
  }));
}

std::string name_match_step(const std::vector<callgraph::PathStep>& witness) {
  for (std::size_t i = 1; i < witness.size(); ++i)
    if (witness[i].symbol_id.starts_with("?.") && witness[i - 1].kind_to_next == frontend::EdgeKind::name_match)
      return "`" + witness[i].symbol_id.substr(1) + "` in " + witness[i - 1].display;
  return "an unresolved attribute";
}

const char* to_string(SelectionReason::Kind kind) {
  switch (kind) {
    case SelectionReason::Kind::static_path: return "static-path";
    case SelectionReason::Kind::name_match: return "name-match";
    case SelectionReason::Kind::evidence: return "evidence";
    case SelectionReason::Kind::rule: return "rule";
    case SelectionReason::Kind::own_file: return "own-file";
    case SelectionReason::Kind::always_run: return "always-run";
    case SelectionReason::Kind::widening: return "widening";
  }
  return "unknown";
}

namespace {

class Selector {
 public:
  explicit Selector(const SelectionInput& input) : input_(input) {
    for (std::size_t i = 0; i < input.tests->size(); ++i) index_[(*input.tests)[i].id] = i;
  }

  void add(const std::string& test_id, SelectionReason reason, int distance = -1) {
    auto it = index_.find(test_id);
    if (it == index_.end()) return;  // a test that no longer exists at head
    auto& entry = chosen_[it->second];
    // One reason of each kind and changed symbol is enough for a report; the first is a shortest path.
    for (const auto& r : entry.reasons)
      if (r.kind == reason.kind && r.changed_symbol == reason.changed_symbol && r.text == reason.text)
        return;
    entry.reasons.push_back(std::move(reason));
    if (distance >= 0 && (entry.distance < 0 || distance < entry.distance)) entry.distance = distance;
  }

  void by_paths(const callgraph::CallGraph& graph, const std::vector<std::string>& seeds,
                const std::string& side) {
    const auto first = static_cast<std::uint32_t>(path_symbols_.size());
    path_symbols_.insert(path_symbols_.end(), seeds.begin(), seeds.end());
    for (auto& reach : callgraph::tests_reached_by_each(graph, seeds))
      for (auto i : reach.sources) reaches_[reach.test_id].push_back(first + i);
    std::set<callgraph::VertexId> live;
    bool live_known = false;
    for (auto& hit : callgraph::tests_reaching(graph, seeds)) {
      const auto& target = graph.vertex(*graph.find(hit.changed_symbol)).symbol;
      std::string what = std::string(seed_label_[hit.changed_symbol]) + " " + target.qualified_name + side;
      if (hit.name_matches > 0) {
        if (!live_known) {
          auto tests = callgraph::tests_with_live_name_matches(graph, seeds);
          live.insert(tests.begin(), tests.end());
          live_known = true;
        }
        if (!live.count(hit.test)) {
          dead_name_matches_.emplace(hit.test_id, dead_name_match_reason(graph, hit, what));
          continue;
        }
        add(hit.test_id,
            {SelectionReason::Kind::name_match,
             "may reach " + what + " in " + std::to_string(hit.distance) + " steps through " + name_match_step(hit.witness) +
                 " on a value of unknown type",
             hit.changed_symbol, hit.witness},
            hit.distance);
        continue;
      }
      add(hit.test_id,
          {SelectionReason::Kind::static_path, "reaches " + what + " in " + std::to_string(hit.distance) + " steps",
           hit.changed_symbol, hit.witness},
          hit.distance);
    }
  }

  /// Why a test reached only through name matches into members of classes it cannot hold is skipped.
  static std::string dead_name_match_reason(const callgraph::CallGraph& graph, const callgraph::ImpactHit& hit,
                                            const std::string& what) {
    // The witness's first name match from the change's end names the class asked about.
    std::string owner = "the class matched", function = "the function defining it";
    for (std::size_t i = hit.witness.size(); i-- > 1;)
      if (hit.witness[i - 1].symbol_id.starts_with("?."))
        if (auto member = graph.find(hit.witness[i].symbol_id))
          if (auto c = callgraph::class_of_member(graph, *member)) {
            owner = graph.vertex(*c).symbol.qualified_name;
            if (auto f = callgraph::defining_function(graph, *c)) function = graph.vertex(*f).symbol.qualified_name;
            break;
          }
    return std::string(kOnlyDeadNameMatches) + what + " through " + name_match_step(hit.witness) +
           " on a value of unknown type, which could be an instance of " + owner + ", a class defined in " +
           function + ", which no path of this test runs: it cannot hold one";
  }

  /// A docstring is data only for code that reads docstrings at run time: a test is selected when
  /// it reaches both the symbol whose docstring changed and a docstring reader.
  void by_docstrings(const callgraph::CallGraph& graph, const std::vector<ChangedSymbol>& changed) {
    if (changed.empty() || !graph.find(frontend::kDocstringsPlaceholder)) return;
    std::map<std::string, callgraph::ImpactHit> readers;
    for (auto& hit : callgraph::tests_reaching(graph, {frontend::kDocstringsPlaceholder}))
      readers.emplace(hit.test_id, std::move(hit));
    std::vector<std::string> seeds;
    for (const auto& s : changed) seeds.push_back(s.id);
    for (auto& hit : callgraph::tests_reaching(graph, seeds)) {
      auto reader = readers.find(hit.test_id);
      if (reader == readers.end()) continue;
      const auto& witness = reader->second.witness;
      std::string via = witness.size() >= 2 ? witness[witness.size() - 2].display : std::string("a docstring reader");
      const auto& target = graph.vertex(*graph.find(hit.changed_symbol)).symbol;
      add(hit.test_id,
          {SelectionReason::Kind::static_path,
           "reaches " + target.qualified_name + ", whose docstring changed, and " + via +
               ", which reads docstrings at run time",
           hit.changed_symbol, hit.witness},
          hit.distance);
    }
  }

  void run() {
    const ChangeSet& changes = *input_.changes;
    std::vector<std::string> head_seeds, base_seeds;
    for (const auto& s : changes.symbols) {
      seed_label_[s.id] = to_string(s.change);
      if (s.change == SymbolChange::deleted) base_seeds.push_back(s.id);
      else head_seeds.push_back(s.id);
    }
    // A symbol counted as changed because it names a changed data file: the reason says which file.
    for (const auto& [id, path] : data_file_readers(changes))
      seed_label_[id] = "changed data file " + path + " through its reader";
    for (const auto& w : changes.widenings)
      if (w.scope == Widening::Scope::importers && !w.detail.empty()) {
        seed_label_[w.detail] = "unparsed module";
        head_seeds.push_back(w.detail);
      }
    by_paths(*input_.head_graph, head_seeds, "");
    if (input_.base_graph && !base_seeds.empty()) by_paths(*input_.base_graph, base_seeds, " (at base)");
    by_docstrings(*input_.head_graph, changes.docstrings);

    std::set<std::string> changed_files;
    for (const auto& f : changes.files) changed_files.insert(f.path);
    for (const auto& test : *input_.tests) {
      if (changed_files.count(test.file))
        add(test.id, {SelectionReason::Kind::own_file, "its own file " + test.file + " changed", {}, {}});
      if (any_match(input_.config->always_run, test.id))
        add(test.id, {SelectionReason::Kind::always_run, "on the always-run list", {}, {}});
      for (const auto& w : changes.widenings) apply_widening(w, test);
    }
  }

  Selection result() const {
    Selection out;
    out.path_symbols = path_symbols_;
    auto importers = files_importing_changes();
    for (std::size_t i = 0; i < input_.tests->size(); ++i) {
      const auto& test = (*input_.tests)[i];
      if (auto it = chosen_.find(i); it != chosen_.end()) {
        SelectedTest s = it->second;
        s.test = test;
        if (auto r = reaches_.find(test.id); r != reaches_.end()) {
          s.reaches = r->second;
          std::sort(s.reaches.begin(), s.reaches.end());
          s.reaches.erase(std::unique(s.reaches.begin(), s.reaches.end()), s.reaches.end());
        }
        out.selected.push_back(std::move(s));
      } else if (auto dead = dead_name_matches_.find(test.id); dead != dead_name_matches_.end()) {
        out.skipped.push_back({test, dead->second});
      } else if (auto via = importers.find(test.file); via != importers.end()) {
        out.skipped.push_back({test, kImportsWithoutPath + via->second +
                                         ", which is on a call path to it; only evidence can show a call "
                                         "the analysis could not resolve"});
      } else {
        out.skipped.push_back({test, "no changed symbol is reachable from it and no rule selects it"});
      }
    }
    return out;
  }

 private:
  /// Files that import, directly, a module on some call path to a changed symbol (the changed
  /// module included); each mapped to that module's name. Transitive imports would name nearly
  /// every test of a framework whose package __init__ imports everything.
  std::map<std::string, std::string> files_importing_changes() const {
    const auto& graph = *input_.head_graph;
    std::set<callgraph::VertexId> on_path;
    std::vector<callgraph::VertexId> queue;
    for (const auto& s : input_.changes->symbols)
      if (auto v = graph.find(s.id); v && on_path.insert(*v).second) queue.push_back(*v);
    for (std::size_t next = 0; next < queue.size(); ++next)
      for (const auto& e : graph.dependents(queue[next]))
        if (e.kind != frontend::EdgeKind::import && !graph.vertex(e.from).is_test && on_path.insert(e.from).second)
          queue.push_back(e.from);
    std::set<std::string> path_files;
    for (auto v : on_path) path_files.insert(graph.vertex(v).symbol.file);
    std::map<std::string, std::string> out;
    for (const auto& file : path_files)
      for (auto v : graph.symbols_in_file(file)) {
        if (graph.vertex(v).symbol.kind != frontend::SymbolKind::module) continue;
        for (const auto& e : graph.dependents(v))
          if (e.kind == frontend::EdgeKind::import)
            out.emplace(graph.vertex(e.from).symbol.file, graph.vertex(v).symbol.qualified_name);
      }
    return out;
  }

  void apply_widening(const Widening& w, const frontend::Test& test) {
    std::string why = w.file + ": " + w.reason;
    switch (w.scope) {
      case Widening::Scope::everything:
        add(test.id, {SelectionReason::Kind::widening, why, {}, {}});
        break;
      case Widening::Scope::folder:
        if (w.detail.empty() || test.file.starts_with(w.detail + "/"))
          add(test.id, {SelectionReason::Kind::widening, why, {}, {}});
        break;
      case Widening::Scope::rule:
        for (const auto& rule : input_.config->rules)
          if (rule.name == w.detail && any_match(rule.tests, test.id))
            add(test.id, {SelectionReason::Kind::rule, why, {}, {}});
        break;
      case Widening::Scope::importers:
      case Widening::Scope::test_file:
      case Widening::Scope::native_units:
      case Widening::Scope::symbol:
        break;  // handled through the graph (native units, symbols: they are in the change set)
    }
  }

  const SelectionInput& input_;
  std::map<std::string, std::size_t> index_;
  std::map<std::size_t, SelectedTest> chosen_;
  std::map<std::string, std::string> seed_label_;
  std::vector<std::string> path_symbols_;  ///< head seeds, then base seeds
  std::map<std::string, std::string> dead_name_matches_;  ///< test id -> why its name matches cannot hold
  std::unordered_map<std::string, std::vector<std::uint32_t>> reaches_;  ///< by test id
};

}  // namespace

Selection select_tests(const SelectionInput& input) {
  Selector selector(input);
  selector.run();
  return selector.result();
}

}  // namespace fastci::planner
