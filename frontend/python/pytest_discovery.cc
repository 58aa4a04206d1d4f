#include "frontend/python/pytest_discovery.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "frontend/python/pytest_ids.h"

namespace fastci::frontend::python {
namespace {

std::string_view base_name(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view directory_of(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

/// One parametrized instance of a test while stacked marks multiply them.
struct Instance {
  std::vector<std::string> ids;
  std::vector<WorkloadKnob> knobs;
  int gpus = 0;
};

/// Fixtures visible at one level of pytest's lookup (a class, a module, a conftest).
using FixtureTable = std::unordered_map<std::string, int>;

class Discovery {
 public:
  Discovery(Resolver& resolver, std::vector<FileFacts>& files, InternedEdges& edges)
      : r_(resolver), files_(files), edges_(edges) {
    for (std::size_t m = 0; m < files_.size(); ++m)
      if (base_name(r_.module(m).facts.path) == "conftest.py")
        conftests_[std::string(directory_of(r_.module(m).facts.path))] = static_cast<int>(m);
  }

  void run() {
    for (std::size_t m = 0; m < files_.size(); ++m)
      if (is_test_file(r_.module(m).facts.path)) collect_module(static_cast<int>(m));
  }

 private:
  /// Module-level names in definition order, the last binding of a name winning.
  void collect_module(int m) {
    int module_scope = r_.global(m, 0);
    const Scope& s = r_.scope(module_scope);
    std::map<std::string, std::size_t> last;
    for (std::size_t i = 0; i < s.bindings.size(); ++i)
      if (s.bindings[i].member != "@decorated") last[s.bindings[i].name] = i;  // still the definition
    std::vector<std::pair<std::size_t, std::string>> order;
    for (const auto& [name, index] : last) order.emplace_back(index, name);
    std::sort(order.begin(), order.end());
    for (const auto& [index, name] : order) {
      const NameBinding& b = s.bindings[index];
      if (b.kind != NameBinding::Kind::definition && b.kind != NameBinding::Kind::from_import) continue;
      for (const auto& v : r_.module_attribute(r_.module(m).module_name, name)) {
        if (v.kind == Value::Kind::function && starts_with(name, "test")) {
          add_function_tests(m, r_.module(m).facts.path + "::" + name, v.id, {}, -1);
          break;
        }
        if (v.kind == Value::Kind::class_) {
          collect_class(m, r_.module(m).facts.path + "::" + name, name, v.id, false);
          break;
        }
      }
    }
  }

  bool is_unittest(int class_scope) {
    for (const auto& base : r_.external_bases(class_scope))
      if (base == "unittest.TestCase" || base == "unittest.case.TestCase" ||
          base == "unittest.IsolatedAsyncioTestCase" ||
          (base.size() >= 8 && base.compare(base.size() - 8, 8, "TestCase") == 0))
        return true;
    return false;
  }

  void collect_class(int m, const std::string& node_id, const std::string& name, int class_scope, bool nested) {
    bool unittest = is_unittest(class_scope);
    const auto& mro = r_.mro(class_scope);
    if (!unittest) {
      if (!starts_with(name, "Test")) return;
      for (int c : mro)
        if (r_.scope(c).defines_init || r_.scope(c).not_a_test) return;
    }
    std::vector<int> order(mro.begin(), mro.end());
    std::set<std::string> seen;
    for (int c : order) {
      for (const auto& b : r_.scope(c).bindings) {
        if (b.kind != NameBinding::Kind::definition) continue;
        int member = r_.global(r_.module_of(c), b.scope);
        if (r_.own_member(c, b.name) != member) continue;  // a later redefinition wins
        if (!seen.insert(b.name).second) continue;
        const Scope& ms = r_.scope(member);
        if (ms.kind == Scope::Kind::function && starts_with(b.name, "test")) {
          add_function_tests(m, node_id + "::" + b.name, member, order, class_scope, unittest);
        } else if (ms.kind == Scope::Kind::class_ && !unittest && !nested) {
          collect_class(m, node_id + "::" + b.name, b.name, member, true);
        }
      }
    }
  }

  void add_function_tests(int m, const std::string& node_id, int function, const std::vector<int>& mro,
                          int class_scope, bool unittest = false) {
    const Scope& f = r_.scope(function);
    FileFacts& facts = files_[m];
    int fm = r_.module_of(function);
    files_[fm].symbols[function - r_.global(fm, 0)].kind = SymbolKind::test;

    // Marks in pytest's order: the function's, then each class from the most basic one down,
    // then the module's pytestmark.
    std::vector<const Mark*> marks;
    for (const auto& mark : f.marks) marks.push_back(&mark);
    for (auto it = mro.rbegin(); it != mro.rend(); ++it)
      for (const auto& mark : r_.scope(*it).marks) marks.push_back(&mark);
    for (const auto& mark : r_.scope(r_.global(m, 0)).marks) marks.push_back(&mark);

    Test base;
    base.symbol = r_.symbol_id(function);
    base.file = facts.path;
    base.line = fm == m ? f.line : (class_scope >= 0 ? r_.scope(class_scope).line : f.line);
    for (const Mark* mark : marks)
      if (std::find(base.marks.begin(), base.marks.end(), mark->name) == base.marks.end())
        base.marks.push_back(mark->name);
    for (const Mark* mark : marks)
      if (mark->name == "world_size" || mark->name == "gpus" || mark->name == "num_gpus")
        for (int n : mark->int_args) base.gpus = std::max(base.gpus, n);
    if (base.gpus == 0) {
      for (int c : mro) {
        const auto& sizes = r_.scope(c).world_sizes;
        if (sizes.empty()) continue;
        base.gpus = *std::max_element(sizes.begin(), sizes.end());
        std::string values;
        for (int n : sizes) values += (values.empty() ? "" : ",") + std::to_string(n);
        base.knobs.push_back({"world_size", values, KnobOrigin::attribute, r_.module(r_.module_of(c)).facts.path,
                              r_.scope(c).line});
        break;
      }
    }

    std::vector<std::string> direct_arguments;
    std::vector<Instance> instances(1);
    bool is_static = true;
    if (!unittest) {
      for (const Mark* mark : marks) {
        if (!mark->parametrize) continue;
        const Parametrize& p = *mark->parametrize;
        if (!p.is_static) {
          is_static = false;
          break;
        }
        if (!p.indirect)
          direct_arguments.insert(direct_arguments.end(), p.argnames.begin(), p.argnames.end());
        instances = expand(instances, p, r_.module(r_.module_of(function)).facts.path);
      }
    }
    if (!is_static) {
      instances.assign(1, Instance{});
      facts.diagnostics.push_back({Diagnostic::Severity::warning, facts.path, f.line,
                                   "parametrize values or ids of " + node_id +
                                       " are computed at run time; the test is listed without its parameter ids"});
    }

    std::vector<std::string> requests;
    std::size_t skip = (class_scope >= 0 && !f.is_staticmethod && !f.required_parameters.empty() &&
                        !f.parameters.empty() && f.required_parameters.front() == f.parameters.front())
                           ? 1
                           : 0;
    if (!unittest) {
      for (std::size_t i = skip; i < f.required_parameters.size(); ++i)
        if (std::find(direct_arguments.begin(), direct_arguments.end(), f.required_parameters[i]) ==
            direct_arguments.end())
          requests.push_back(f.required_parameters[i]);
    }
    for (const Mark* mark : marks)
      if (mark->name == "usefixtures")
        requests.insert(requests.end(), mark->string_args.begin(), mark->string_args.end());
    base.fixtures = resolve_fixtures(m, mro, requests, base.symbol, facts);

    for (const auto& instance : instances) {
      Test test = base;
      test.id = node_id;
      if (!instance.ids.empty()) {
        test.id += "[";
        for (std::size_t i = 0; i < instance.ids.size(); ++i) test.id += (i ? "-" : "") + instance.ids[i];
        test.id += "]";
      }
      test.knobs.insert(test.knobs.end(), instance.knobs.begin(), instance.knobs.end());
      if (instance.gpus > 0) test.gpus = instance.gpus;
      // A later definition of the same test name replaces an earlier one, as in pytest.
      auto same = std::find_if(facts.tests.begin(), facts.tests.end(), [&](const Test& t) { return t.id == test.id; });
      if (same != facts.tests.end()) *same = std::move(test);
      else facts.tests.push_back(std::move(test));
    }
  }

  std::vector<Instance> expand(const std::vector<Instance>& calls, const Parametrize& p, const std::string& file) {
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < p.sets.size(); ++i) {
      const ParameterSet& set = p.sets[i];
      if (set.id) {
        ids.push_back(*set.id);
      } else if (i < p.ids.size() && p.ids[i]) {
        ids.push_back(*p.ids[i]);
      } else {
        std::string id;
        for (std::size_t k = 0; k < p.argnames.size() && k < set.value_ids.size(); ++k) {
          if (k) id += "-";
          id += set.value_ids[k] ? *set.value_ids[k] : p.argnames[k] + std::to_string(i);
        }
        ids.push_back(id);
      }
    }
    ids = make_unique_ids(ids);
    std::vector<Instance> out;
    for (const auto& call : calls) {
      if (p.sets.empty()) {
        Instance next = call;
        next.ids.push_back("NOTSET");
        out.push_back(std::move(next));
        continue;
      }
      for (std::size_t i = 0; i < p.sets.size(); ++i) {
        Instance next = call;
        next.ids.push_back(ids[i]);
        for (std::size_t k = 0; k < p.argnames.size() && k < p.sets[i].values.size(); ++k) {
          next.knobs.push_back({p.argnames[k], p.sets[i].values[k], KnobOrigin::parametrize, file, p.line});
          if (p.argnames[k] == "world_size") {
            const auto& v = p.sets[i].value_ids[k];
            if (v && !v->empty() && v->size() < 9 && std::all_of(v->begin(), v->end(), ::isdigit))
              next.gpus = std::stoi(*v);
          }
        }
        out.push_back(std::move(next));
      }
    }
    return out;
  }

  // ---- fixtures ---------------------------------------------------------------------------------

  /// Fixtures a module's namespace offers: its own and the fixture functions it imports.
  const FixtureTable& module_fixtures(int m) {
    if (auto it = module_tables_.find(m); it != module_tables_.end()) return it->second;
    FixtureTable table;
    int g = r_.global(m, 0);
    for (const auto& b : r_.scope(g).bindings) {
      if (b.kind == NameBinding::Kind::definition) {
        int def = r_.global(m, b.scope);
        if (r_.scope(def).is_fixture) table[r_.scope(def).fixture_name] = def;
      } else if (b.kind == NameBinding::Kind::from_import) {
        for (const auto& v : r_.module_attribute(r_.module(m).module_name, b.name))
          if (v.kind == Value::Kind::function && r_.scope(v.id).is_fixture) table[b.name] = v.id;
      }
    }
    return module_tables_[m] = std::move(table);
  }

  FixtureTable class_fixtures(int class_scope) {
    FixtureTable table;
    for (const auto& b : r_.scope(class_scope).bindings) {
      if (b.kind != NameBinding::Kind::definition) continue;
      int def = r_.global(r_.module_of(class_scope), b.scope);
      if (r_.scope(def).is_fixture) table[r_.scope(def).fixture_name] = def;
    }
    return table;
  }

  std::vector<std::string> resolve_fixtures(int m, const std::vector<int>& mro, std::vector<std::string> requests,
                                            const std::string& test_symbol, FileFacts& facts) {
    std::vector<FixtureTable> chain;
    for (int c : mro) chain.push_back(class_fixtures(c));
    chain.push_back(module_fixtures(m));
    std::string directory(directory_of(r_.module(m).facts.path));
    while (true) {
      if (auto it = conftests_.find(directory); it != conftests_.end()) chain.push_back(module_fixtures(it->second));
      if (directory.empty()) break;
      directory = std::string(directory_of(directory));
    }
    // Autouse fixtures of every visible level come first, as pytest orders them.
    std::vector<std::string> all;
    for (auto level = chain.rbegin(); level != chain.rend(); ++level)
      for (const auto& [name, scope] : *level)
        if (r_.scope(scope).fixture_autouse) all.push_back(name);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    all.insert(all.end(), requests.begin(), requests.end());

    auto find = [&](const std::string& name, std::size_t from) -> std::pair<int, std::size_t> {
      for (std::size_t level = from; level < chain.size(); ++level)
        if (auto it = chain[level].find(name); it != chain[level].end()) return {it->second, level};
      return {-1, 0};
    };
    std::vector<std::string> resolved;
    std::unordered_set<int> seen;
    struct Pending {
      std::string name;
      std::size_t from;
      std::string requester;
    };
    std::vector<Pending> queue;
    for (const auto& name : all) queue.push_back({name, 0, test_symbol});
    for (std::size_t i = 0; i < queue.size(); ++i) {
      Pending request = queue[i];
      auto [fixture, level] = find(request.name, request.from);
      if (fixture < 0) continue;
      std::string id = r_.symbol_id(fixture);
      add_edge(facts, request.requester, id, r_.scope(fixture).line);
      if (!seen.insert(fixture).second) continue;
      resolved.push_back(id);
      const Scope& f = r_.scope(fixture);
      std::size_t skip = (!f.parameters.empty() && !f.required_parameters.empty() &&
                          f.parameters.front() == f.required_parameters.front() &&
                          (f.parameters.front() == "self" || f.parameters.front() == "cls"))
                             ? 1
                             : 0;
      for (std::size_t k = skip; k < f.required_parameters.size(); ++k) {
        const std::string& name = f.required_parameters[k];
        queue.push_back({name, name == f.fixture_name ? level + 1 : 0, id});
      }
    }
    return resolved;
  }

  void add_edge(FileFacts& facts, const std::string& from, const std::string& to, int line) {
    // Keyed by interned ids: a key string per edge held about 30 MB on Megatron-LM's 10,000 tests.
    const auto f = r_.intern(from), t = r_.intern(to);
    if (!seen_edges_.insert(std::uint64_t{f} << 32 | t).second) return;
    edges_.add(static_cast<std::size_t>(&facts - files_.data()), f, t, EdgeKind::fixture, line);
  }

  Resolver& r_;
  std::vector<FileFacts>& files_;
  std::unordered_map<std::string, int> conftests_;
  std::unordered_map<int, FixtureTable> module_tables_;
  std::unordered_set<std::uint64_t> seen_edges_;  ///< from << 32 | to, interned (Resolver::intern)
  InternedEdges& edges_;
};

}  // namespace

bool is_test_file(std::string_view path) {
  std::string_view name = base_name(path);
  auto ends_with = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  return (starts_with(name, "test_") && ends_with(".py")) || ends_with("_test.py");
}

void discover_tests(Resolver& resolver, std::vector<FileFacts>& files, InternedEdges& edges) {
  Discovery(resolver, files, edges).run();
}

}  // namespace fastci::frontend::python
