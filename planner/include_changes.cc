#include "planner/include_changes.h"

#include <algorithm>
#include <set>

#include "callgraph/native_index.h"

namespace fastci::planner {

std::optional<IncludeDirective> parse_include_directive(std::string_view line) {
  auto skip = [&](std::size_t i) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    return i;
  };
  std::size_t i = skip(0);
  if (i >= line.size() || line[i] != '#') return std::nullopt;
  i = skip(i + 1);
  if (line.substr(i, 7) != "include") return std::nullopt;
  i = skip(i + 7);
  if (i >= line.size() || (line[i] != '"' && line[i] != '<')) return std::nullopt;
  char close = line[i] == '"' ? '"' : '>';
  std::size_t end = line.find(close, i + 1);
  if (end == std::string_view::npos || end == i + 1) return std::nullopt;
  return IncludeDirective{std::string(line.substr(i + 1, end - i - 1)), close == '"'};
}

namespace {

bool names(const std::string& path, const std::string& name) {
  return path == name || (path.size() > name.size() && path.ends_with(name) && path[path.size() - name.size() - 1] == '/');
}

/// A prototype's symbol ("cpp-proto:f(int)@a.h") stands for its function ("cpp:f(int)") too: calls
/// name the function.
void add_targets(const frontend::Symbol& s, std::set<std::string>& targets) {
  targets.insert(s.id);
  if (!s.id.starts_with("cpp-proto:")) return;
  std::string rest = s.id.substr(std::string("cpp-proto:").size());
  targets.insert(rest.substr(0, rest.rfind('@')));
}

bool is_code(frontend::SymbolKind kind) {
  return kind == frontend::SymbolKind::function || kind == frontend::SymbolKind::method ||
         kind == frontend::SymbolKind::kernel;
}

class IncludeMapper {
 public:
  IncludeMapper(const FactsLookup& base, const FactsLookup& head,
                const std::map<std::string, std::set<std::string>>& includers, const callgraph::CallGraph& graph,
                ChangeSet& changes)
      : base_(base), head_(head), includers_(includers), graph_(graph), changes_(changes) {
    for (const auto& s : changes.symbols) present_.insert(s.id);
  }

  void map(const IncludeChange& include) {
    auto directive = parse_include_directive(include.text);
    if (!directive) return widen(include, "is no include directive fastci can read");
    const std::string what = "line " + std::to_string(include.line) + " (`" + include.text + "`)";
    if (!include.added) {
      note(include.file, what + " removed: a function that used what it declared is a Clang error at head, and "
                                "counts as changed");
      return;
    }
    // The units whose reading of headers the line changes: the file itself, or the units reading it.
    std::vector<std::string> units;
    if (callgraph::is_translation_unit(include.file)) {
      units.push_back(include.file);
    } else if (auto it = includers_.find(include.file); it != includers_.end()) {
      units.assign(it->second.begin(), it->second.end());
    }
    if (units.empty()) return note(include.file, what + " added to a header no parsed unit reads");
    bool found = false;
    std::set<std::string> brought, users;
    for (const auto& unit : units) {
      const auto* head_unit = head_(unit);
      const auto* base_unit = base_(unit);
      if (!head_unit || !base_unit) return widen(include, "changes " + unit + ", whose facts are missing at one side");
      const auto& now = head_unit->imported_modules;
      found |= std::any_of(now.begin(), now.end(), [&](const std::string& p) { return names(p, directive->name); });
      std::set<std::string> before(base_unit->imported_modules.begin(), base_unit->imported_modules.end());
      std::set<std::string> targets;
      for (const auto& path : now) {
        if (before.contains(path)) continue;
        brought.insert(path);
        if (const auto* facts = head_(path))
          for (const auto& s : facts->symbols) add_targets(s, targets);
      }
      for (const auto& file : {unit, include.file})
        for (auto& id : users_in(file, targets)) users.insert(std::move(id));
    }
    if (!found)
      return widen(include, "brings a header outside the repository (or one Clang did not find), whose declarations "
                            "may change any function reading it");
    if (brought.empty()) return note(include.file, what + " adds no header the units reading it did not read already");
    for (const auto& id : users) record(id);
    std::string list;
    for (const auto& id : users) list += (list.empty() ? "" : ", ") + graph_.vertex(*graph_.find(id)).symbol.qualified_name;
    note(include.file, what + " newly brings " + std::to_string(brought.size()) + " header(s) (" + *brought.begin() +
                           (brought.size() > 1 ? ", ..." : "") + ") into " + std::to_string(units.size()) + " unit(s): " +
                           (users.empty() ? std::string("no function uses their declarations")
                                          : std::to_string(users.size()) + " function(s) using their declarations count as changed: " + list));
  }

 private:
  /// The functions of `file` with an edge to one of `targets`.
  std::set<std::string> users_in(const std::string& file, const std::set<std::string>& targets) const {
    std::set<std::string> out;
    for (const auto& id : targets) {
      auto v = graph_.find(id);
      if (!v) continue;
      for (const auto& e : graph_.dependents(*v)) {
        const auto& user = graph_.vertex(e.from).symbol;
        if (user.file == file && is_code(user.kind)) out.insert(user.id);
      }
    }
    return out;
  }

  void record(const std::string& id) {
    if (!present_.insert(id).second) return;
    const auto& s = graph_.vertex(*graph_.find(id)).symbol;
    changes_.symbols.push_back({s.id, SymbolChange::changed, s.kind, s.language, s.qualified_name, s.file,
                                s.first_line, s.last_line, {}});
    for (auto& f : changes_.files)
      if (f.path == s.file) f.symbols.push_back(s.id);
  }

  void widen(const IncludeChange& include, const std::string& why) {
    changes_.widenings.push_back({Widening::Scope::native_units, include.file,
                                  "line " + std::to_string(include.line) + " (`" + include.text + "`) " + why +
                                      ": every unit that reads the file counts as changed",
                                  {}});
  }

  void note(const std::string& file, const std::string& text) {
    for (auto& f : changes_.files)
      if (f.path == file) f.note += (f.note.empty() ? "" : "; ") + text;
  }

  const FactsLookup& base_;
  const FactsLookup& head_;
  const std::map<std::string, std::set<std::string>>& includers_;
  const callgraph::CallGraph& graph_;
  ChangeSet& changes_;
  std::set<std::string> present_;
};

}  // namespace

void map_include_changes(const FactsLookup& base, const FactsLookup& head,
                         const std::map<std::string, std::set<std::string>>& includers,
                         const callgraph::CallGraph& graph, ChangeSet& changes) {
  IncludeMapper mapper(base, head, includers, graph, changes);
  for (const auto& include : changes.includes) mapper.map(include);
}

}  // namespace fastci::planner
