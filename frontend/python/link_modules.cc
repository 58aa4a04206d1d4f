#include "frontend/python/link_modules.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "frontend/python/builtins.h"
#include "frontend/python/interned_edges.h"
#include "frontend/python/pytest_discovery.h"
#include "frontend/python/resolver.h"

namespace fastci::frontend::python {
namespace {

class Linker {
 public:
  Linker(const std::vector<ModuleRecord>& modules, std::vector<FileFacts>& files,
         const std::map<std::string, std::string>& package_aliases, LinkOrder order)
      : modules_(modules), files_(files), resolver_(modules, package_aliases), order_(order), edges_(files.size()) {
    resolver_.prepare_indexes();
    index_variables();
    index_built_classes();
  }

  /// The resolver's answers, not needed once every module is linked.
  void release_memo() { resolver_.release_memo(); }
  /// The linked edges written into the files' facts as strings (after the memo and the records are
  /// freed); the texts they were numbers of go with them (the resolver is asked nothing more).
  void expand_edges() {
    edges_.expand_into(files_, resolver_.texts_by_number());
    resolver_.release_texts();
  }

  const Resolver::OrderIndependenceStats& order_independence_stats() const { return resolver_.order_independence_stats(); }

  void run() {
    for (std::size_t i = 0; i < modules_.size(); ++i) {
      std::size_t m = order_ == LinkOrder::reversed ? modules_.size() - 1 - i : i;
      module_ = static_cast<int>(m);
      seen_.clear();
      link_structure();
      link_imports();
      link_imported_variables();
      for (const auto& reference : modules_[m].references) {
        if (reference.kind == EdgeKind::read) link_read(reference);
        else link_reference(reference);
      }
    }
    link_name_matches();
    discover_tests(resolver_, files_, edges_);
  }

 private:
  // ---- variables: module- and class-level names and their readers ---------------------------

  void index_variables() {
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      const auto& record = modules_[m];
      for (std::size_t v = 0; v < record.variables.size(); ++v) {
        const Variable& variable = record.variables[v];
        const std::string& id = record.facts.symbols[record.scopes.size() + v].id;
        int g = resolver_.global(static_cast<int>(m), variable.scope);
        variables_[g][variable.name].push_back(id);
        variable_names_.insert(variable.name);
        if (record.scopes[variable.scope].kind == Scope::Kind::class_)
          class_variables_[variable.name].push_back({static_cast<int>(m), id});
      }
    }
  }

  const std::vector<std::string>& variables_in(int global_scope, const std::string& name) const {
    static const std::vector<std::string> kNone;
    auto scope = variables_.find(global_scope);
    if (scope == variables_.end()) return kNone;
    auto it = scope->second.find(name);
    return it == scope->second.end() ? kNone : it->second;
  }

  /// Variables a plain name read in `g` refers to (LEGB: a local of an enclosing function hides them).
  std::vector<std::string> visible_variables(int g, const std::string& name) {
    for (int s = g;;) {
      const Scope& scope = resolver_.scope(s);
      if (scope.kind == Scope::Kind::function) {
        auto bindings = resolver_.bindings_named(s, name);
        if (!bindings.empty() && !only_comprehension_variables(bindings)) return {};
      }
      if (scope.kind == Scope::Kind::module) return module_variables(resolver_.module_of(s), name);
      if (scope.kind == Scope::Kind::class_ && s == g) {
        const auto& found = variables_in(s, name);
        if (!found.empty()) return found;
      }
      if (scope.parent < 0) return {};
      s = resolver_.global(resolver_.module_of(s), scope.parent);
    }
  }

  /// A module's variables named `name`, or, where it binds none, those its star imports bring
  /// (`from .constants import *`, followed transitively where the imported module exports the name).
  std::vector<std::string> module_variables(int module, const std::string& name) {
    std::vector<std::string> out;
    std::vector<int> queue{module};
    std::unordered_set<int> seen{module};
    for (std::size_t i = 0; i < queue.size() && i < 64; ++i) {
      int g = resolver_.global(queue[i], 0);
      const auto& found = variables_in(g, name);
      if (!found.empty()) {
        out.insert(out.end(), found.begin(), found.end());
        continue;
      }
      if (!resolver_.bindings_named(g, name).empty()) continue;  // a definition or an untracked binding
      for (const auto& b : resolver_.scope(g).bindings) {
        if (b.kind != NameBinding::Kind::star_import) continue;
        int target = resolver_.find_module(b.target, queue[i]);
        if (target >= 0 && resolver_.star_exports(target, name) && seen.insert(target).second) queue.push_back(target);
      }
    }
    return out;
  }

  /// Class-level variables named `name` of a class and its bases; of its subclasses too when
  /// the receiver's exact type is unknown (a subclass may set the attribute).
  std::vector<std::string> class_variables(int class_scope, const std::string& name, bool subclasses) {
    std::vector<std::string> out;
    for (int c : resolver_.mro(class_scope))
      for (const auto& id : variables_in(c, name)) out.push_back(id);
    if (!subclasses) return out;
    std::vector<int> queue = resolver_.subclasses(class_scope);
    std::unordered_set<int> seen(queue.begin(), queue.end());
    for (std::size_t i = 0; i < queue.size(); ++i) {
      for (const auto& id : variables_in(queue[i], name)) out.push_back(id);
      for (int sub : resolver_.subclasses(queue[i]))
        if (seen.insert(sub).second) queue.push_back(sub);
    }
    return out;
  }

  /// Who a read is attributed to: the variable its statement binds, the definition whose header
  /// it is in, or its scope.
  std::string reader_of(const RawReference& reference) const {
    const auto& record = modules_[module_];
    if (reference.owner >= 0) return record.facts.symbols[record.scopes.size() + reference.owner].id;
    int scope = reference.decorated >= 0 ? reference.decorated : reference.scope;
    return resolver_.symbol_id(resolver_.global(module_, scope));
  }

  /// Splits a dotted text at the dots outside call parentheses: "f(a.b).c" -> "f(a.b)", "c".
  static std::vector<std::string> components(const std::string& text) {
    std::vector<std::string> out(1);
    int depth = 0;
    for (char c : text) {
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if (c == '.' && depth == 0) {
        out.emplace_back();
        continue;
      }
      out.back() += c;
    }
    return out;
  }

  static bool plain_name(const std::string& s) { return !s.empty() && s.find_first_of("([<") == std::string::npos; }

  void link_read(const RawReference& reference) {
    std::string from = reader_of(reference);
    if (reference.text == kDocstringReader) return add(from, kDocstringsPlaceholder, EdgeKind::read, reference.line);
    auto parts = components(reference.text);
    int g = resolver_.global(module_, reference.scope);
    link_built_fields(from, reference, parts, g);
    if (plain_name(parts[0]) && variable_names_.count(parts[0]))
      for (const auto& id : visible_variables(g, parts[0])) add(from, id, EdgeKind::read, reference.line);
    std::string prefix = parts[0];
    for (std::size_t k = 1; k < parts.size(); prefix += "." + parts[k], ++k) {
      const std::string& attribute = parts[k];
      if (!plain_name(attribute) || !variable_names_.count(attribute)) continue;
      auto values = resolver_.resolve(prefix, g);
      for (const auto& v : values) {
        if (v.kind == Value::Kind::module) {
          for (const auto& id : module_variables(v.id, attribute)) add(from, id, EdgeKind::read, reference.line);
        } else if (v.kind == Value::Kind::class_ || v.kind == Value::Kind::instance) {
          for (const auto& id : class_variables(v.id, attribute, !v.exact)) add(from, id, EdgeKind::read, reference.line);
        }
      }
      // A read on a value of unknown type may read any class attribute of that name.
      if (values.empty() && class_variables_.count(attribute)) {
        add(from, "?." + attribute, EdgeKind::name_match, reference.line);
        name_matched_.insert(attribute);
      }
    }
  }

  // ---- fields that library code reads: pydantic models, dataclasses, enums, nested Config ------

  /// Whether code outside the repository builds the class from its body: a base outside the
  /// repository anywhere in its hierarchy (pydantic.BaseModel, Enum, NamedTuple, nn.Module, one
  /// the resolver cannot find), or a decorator or class keyword on it or a repository base
  /// (@dataclass, @attr.s, metaclass=). Such code reads fields no repository line reads: a default
  /// only a validator sees, a nested Config's settings only the metaclass sees.
  bool built_by_library(int class_scope) {
    if (!resolver_.external_bases(class_scope).empty()) return true;
    for (int c : resolver_.mro(class_scope))
      if (resolver_.scope(c).build_hooks) return true;
    return false;
  }

  /// Names of the classes built_by_library, so that only reads and calls that may name one are resolved.
  void index_built_classes() {
    for (int g = 0; g < resolver_.scope_count(); ++g)
      if (resolver_.scope(g).kind == Scope::Kind::class_ && built_by_library(g)) built_names_.insert(resolver_.scope(g).name);
  }

  /// The vertex standing for what building a library-built class reads: a read edge from it to each
  /// class-level variable of every repository class in the class's MRO and of the classes nested in
  /// them, made on first use. One hub per class keeps a config class of 300 fields that 1,000 places
  /// name from becoming 300,000 edges.
  std::string built_fields_hub(int class_scope) {
    std::string hub = "?fields built by " + resolver_.scope(class_scope).qualified_name;
    if (!hubs_.insert(class_scope).second) return hub;
    std::set<std::string> fields;
    for (int c : resolver_.mro(class_scope)) {
      int module = resolver_.module_of(c);
      int first = resolver_.global(module, 0);
      const auto& scopes = modules_[module].scopes;
      for (std::size_t s = 0; s < scopes.size(); ++s) {
        // c itself, or a class nested (at any depth) in it.
        int inner = static_cast<int>(s);
        while (inner >= 0 && first + inner != c) inner = scopes[inner].parent;
        if (inner < 0 || scopes[s].kind != Scope::Kind::class_) continue;
        if (auto v = variables_.find(first + static_cast<int>(s)); v != variables_.end())
          for (const auto& [name, ids] : v->second) fields.insert(ids.begin(), ids.end());
      }
    }
    const auto file = static_cast<std::size_t>(resolver_.module_of(class_scope));
    for (const auto& field : fields)
      edges_.add(file, resolver_.intern(hub), resolver_.intern(field), EdgeKind::read, resolver_.scope(class_scope).line);
    return hub;
  }

  /// A read or call that names a library-built class (`Config(**d)`, `Config.parse_obj(d)`, a field
  /// annotated with it, a class passed as a value) builds it: it depends on every field the building
  /// reads. A read of one field (`Enum.member`) depends on that field alone, through its read edge;
  /// the class's own members and its subclasses' headers build nothing.
  void link_built_fields(const std::string& from, const RawReference& reference, const std::vector<std::string>& parts,
                         int g) {
    if (built_names_.empty()) return;
    std::string prefix;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (!plain_name(parts[k])) return;
      prefix += k ? "." + parts[k] : parts[k];
      if (!built_names_.count(parts[k])) continue;
      for (const auto& v : resolver_.resolve(prefix, g)) {
        if (v.kind != Value::Kind::class_ || !built_by_library(v.id)) continue;
        if (k + 1 < parts.size() && !class_variables(v.id, parts[k + 1], false).empty()) continue;
        const std::string id = resolver_.symbol_id(v.id);
        if (from == id || from.starts_with(id + ".")) continue;
        if (builds_through_header(reference, v.id)) continue;
        add(from, built_fields_hub(v.id), EdgeKind::read, reference.line);
      }
      return;
    }
  }

  /// A subclass's header names its base: constructing the subclass reads the base's fields through
  /// its own MRO, not through the header.
  bool builds_through_header(const RawReference& reference, int base) {
    if (reference.owner >= 0 || reference.decorated < 0) return false;
    int definition = resolver_.global(module_, reference.decorated);
    if (resolver_.scope(definition).kind != Scope::Kind::class_) return false;
    const auto& order = resolver_.mro(definition);
    return std::find(order.begin() + 1, order.end(), base) != order.end();
  }

  /// Import variables depend on what they import (an `import` edge to the repository module, or
  /// to a placeholder for one outside it); `from m import X` where m binds X as a variable: the
  /// importer's X reads m's.
  void link_imported_variables() {
    const auto& record = modules_[module_];
    for (std::size_t v = 0; v < record.variables.size(); ++v) {
      const Variable& variable = record.variables[v];
      if (!variable.is_import) continue;
      const Symbol& symbol = record.facts.symbols[record.scopes.size() + v];
      std::string module = variable.imported_module;
      if (module.empty())
        for (const auto& b : resolver_.bindings_named(resolver_.global(module_, variable.scope), variable.name))
          if (b->kind == NameBinding::Kind::module_import) module = b->member.empty() ? b->target : b->member;
      int target = module.empty() ? -1 : resolver_.find_module(module, module_);
      if (target >= 0 && target != module_) add(symbol.id, "py:" + modules_[target].module_name, EdgeKind::import, symbol.first_line);
      else if (target < 0 && !module.empty()) add(symbol.id, "?" + module, EdgeKind::import, symbol.first_line);
      if (variable.imported_module.empty() || target < 0 || target == module_) continue;
      for (const auto& to : variables_in(resolver_.global(target, 0), variable.imported_member))
        add(symbol.id, to, EdgeKind::read, symbol.first_line);
    }
  }

  /// `x.name(...)` on a value the resolver cannot type (a parameter, a factory's or a container's
  /// result) may call any method of that name: a `name-match` edge to the "?.name" placeholder,
  /// which selection follows last and evidence rules out first. A receiver the resolver does know
  /// (a repository class, a module, an external library value) is trusted: its answer stands.
  /// `a.b.m(...)`: the receiver text "a.b" and the method name "m", when the call has that shape.
  static std::optional<std::pair<std::string, std::string>> method_call(const std::string& text) {
    auto parts = components(text);
    if (parts.size() < 2 || !plain_name(parts.back())) return std::nullopt;
    std::string receiver = parts[0];
    for (std::size_t k = 1; k + 1 < parts.size(); ++k) receiver += "." + parts[k];
    return std::pair{std::move(receiver), parts.back()};
  }

  void link_unresolved_call(const std::string& from, const RawReference& reference, int g) {
    auto call = method_call(reference.text);
    if (!call) return;
    const auto& [receiver, name] = *call;
    if (!resolver_.resolve(receiver, g).empty()) return;
    auto parts = components(reference.text);
    // open(p).read(), str(x).split(): a builtin's file, string or number, where no scope rebinds it.
    std::string root = parts[0].substr(0, parts[0].find_first_of("(["));
    if (returns_library_value(root) && parts[0].size() > root.size() && resolver_.resolve(root, g).empty()) return;
    add_name_match(from, name, reference.line);
  }

  /// `layer.load_state_dict(sd)` where layer comes out of a container that other code fills (`for
  /// layer in self.funcs`, `x = REGISTRY[k]`): what the resolver saw stored there need not be all that
  /// is (stores through other names, from other modules, by code outside the repository), so the
  /// call keeps its name match beside the resolved targets. A container local to the function, whose
  /// every store is in view (`reqs.append(h); reqs[-1].wait()`), is trusted.
  void link_call_on_container_element(const std::string& from, const RawReference& reference, int g) {
    if (auto call = method_call(reference.text); call && reads_shared_container(call->first, g))
      add_name_match(from, call->second, reference.line);
  }

  /// Whether a receiver reads an element of a container that is not a local of the function
  /// reading it: a subscript of one, or a name bound to such an element or loop item.
  bool reads_shared_container(const std::string& receiver, int g) const {
    if (auto at = receiver.find("[]"); at != std::string::npos) return !local_container(receiver.substr(0, at), g);
    const std::string head = receiver.substr(0, receiver.find_first_of(".(["));
    for (int scope = g;;) {
      for (const NameBinding* b : resolver_.bindings_named(scope, head)) {
        if (b->kind != NameBinding::Kind::alias) continue;
        if (b->member == "@element") return !local_container(b->target, scope);
        if (b->target.ends_with("[]")) return !local_container(b->target.substr(0, b->target.find("[]")), scope);
      }
      const Scope& s = resolver_.scope(scope);
      if (s.kind == Scope::Kind::module) return false;
      scope = resolver_.global(resolver_.module_of(scope), s.parent);
    }
  }

  /// A plain name bound in the function `g` itself (not a parameter, global or attribute).
  bool local_container(const std::string& container, int g) const {
    if (container.empty() || container.find_first_of(".([") != std::string::npos) return false;
    if (resolver_.scope(g).kind != Scope::Kind::function) return false;
    auto bindings = resolver_.bindings_named(g, container);
    return !bindings.empty() && std::none_of(bindings.begin(), bindings.end(), [](const NameBinding* b) {
      return b->kind == NameBinding::Kind::parameter;
    });
  }

  void add_name_match(const std::string& from, const std::string& name, int line) {
    add(from, "?." + name, EdgeKind::name_match, line);
    name_matched_.insert(name);
  }

  /// "?.x" placeholders (unresolved reads and calls of `.x`) depend on every class attribute and
  /// every method named x.
  void link_name_matches() {
    std::unordered_map<std::string, std::vector<std::pair<int, std::string>>> methods;
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      const auto& scopes = modules_[m].scopes;
      for (std::size_t s = 1; s < scopes.size(); ++s)
        if (scopes[s].kind == Scope::Kind::function && scopes[scopes[s].parent].kind == Scope::Kind::class_ &&
            name_matched_.count(scopes[s].name))
          methods[scopes[s].name].push_back(
              {static_cast<int>(m), resolver_.symbol_id(resolver_.global(static_cast<int>(m), static_cast<int>(s)))});
    }
    for (const auto& name : name_matched_) {
      for (const auto* targets : {&class_variables_[name], &methods[name]})
        for (const auto& [m, id] : *targets) {
          module_ = m;
          add("?." + name, id, EdgeKind::name_match, 0);
        }
    }
  }

  void add(const std::string& from, const std::string& to, EdgeKind kind, int line) {
    const auto f = resolver_.intern(from), t = resolver_.intern(to);
    if (!seen_.insert({f, t, line, kind}).second) return;
    edges_.add(static_cast<std::size_t>(module_), f, t, kind, line);
  }

  /// contains: module -> top-level definitions, class -> its definitions; override edges.
  void link_structure() {
    const auto& scopes = modules_[module_].scopes;
    // Variables get no contains edge: reaching a module or class (something it imports changed)
    // does not change the values its names are bound to, and through name matches such an edge
    // would reach every reader of every attribute of every class on the way.
    for (std::size_t s = 1; s < scopes.size(); ++s) {
      const Scope& scope = scopes[s];
      const Scope& parent = scopes[scope.parent];
      int g = resolver_.global(module_, static_cast<int>(s));
      if (parent.kind != Scope::Kind::function)
        add(resolver_.symbol_id(resolver_.global(module_, scope.parent)), resolver_.symbol_id(g),
            EdgeKind::contains, scope.line);
      if (scope.kind == Scope::Kind::function && parent.kind == Scope::Kind::class_) {
        int class_scope = resolver_.global(module_, scope.parent);
        const auto& order = resolver_.mro(class_scope);
        for (std::size_t i = 1; i < order.size(); ++i) {
          int base = resolver_.own_member(order[i], scope.name);
          if (base < 0) continue;
          add(resolver_.symbol_id(base), resolver_.symbol_id(g), EdgeKind::override_, scope.line);
          break;
        }
      }
    }
  }

  /// import edges to repository modules, and to the packages whose __init__ runs on the way.
  void link_imports() {
    const auto& scopes = modules_[module_].scopes;
    for (std::size_t s = 0; s < scopes.size(); ++s) {
      std::string from = resolver_.symbol_id(resolver_.global(module_, static_cast<int>(s)));
      for (const auto& b : scopes[s].bindings) {
        std::vector<std::string> names;
        if (b.kind == NameBinding::Kind::module_import) names = {b.member.empty() ? b.target : b.member};
        else if (b.kind == NameBinding::Kind::from_import) names = {b.target, b.target + "." + b.member};
        else if (b.kind == NameBinding::Kind::star_import) names = {b.target};
        else continue;
        for (const auto& name : names) {
          int target = resolver_.find_module(name, module_);
          if (target < 0 || target == module_) continue;
          const std::string& full = modules_[target].module_name;
          // Every package on the way to the module runs its __init__.py.
          for (std::size_t dot = full.find('.'); dot != std::string::npos; dot = full.find('.', dot + 1)) {
            int package = resolver_.find_module(full.substr(0, dot), module_);
            if (package >= 0 && package != module_ && modules_[package].module_name == full.substr(0, dot))
              add(from, "py:" + modules_[package].module_name, EdgeKind::import, b.line);
          }
          add(from, "py:" + full, EdgeKind::import, b.line);
        }
      }
    }
  }

  /// Edge targets of a resolved callee: functions, constructors, callable instances, externals.
  void call_targets(const std::vector<Value>& values, std::vector<std::pair<std::string, EdgeKind>>& out) {
    for (const auto& v : values) {
      switch (v.kind) {
        case Value::Kind::function: {
          // A decorated name calls the decorator's wrapper; the definition keeps an edge for
          // selection (the wrapper is one function for every use of the decorator: impact.cc).
          out.emplace_back(resolver_.symbol_id(v.id), v.behind_wrapper ? EdgeKind::reference : EdgeKind::call);
          if (v.receiver >= 0)
            for (int o : resolver_.overriders(v.receiver, resolver_.scope(v.id).name))
              out.emplace_back(resolver_.symbol_id(o), EdgeKind::virtual_call);
          break;
        }
        case Value::Kind::class_: {
          Value exact = v;
          exact.exact = true;
          for (const auto& init : resolver_.attribute({exact}, "__init__")) {
            if (init.kind == Value::Kind::function) out.emplace_back(resolver_.symbol_id(init.id), EdgeKind::call);
            else if (init.kind == Value::Kind::external) out.emplace_back("?" + init.text.str(), EdgeKind::call);
          }
          // A class of unknown exact type (`cls(...)` in a classmethod, a parameter holding a class)
          // may be any subclass: its constructors are called here, not through the base's callers.
          if (!v.exact)
            for (int o : resolver_.overriders(v.id, "__init__"))
              out.emplace_back(resolver_.symbol_id(o), EdgeKind::virtual_call);
          out.emplace_back(resolver_.symbol_id(v.id), EdgeKind::call);
          break;
        }
        case Value::Kind::instance: {
          // Calling an instance runs __call__; torch modules route __call__ to forward.
          // A receiver of unknown exact type (an annotated parameter, self) may be any subclass.
          auto calls = resolver_.attribute({v}, "__call__");
          std::vector<Value> methods;
          for (const auto& c : calls)
            if (c.kind == Value::Kind::function) methods.push_back(c);
          if (methods.empty())
            for (const auto& f : resolver_.attribute({v}, "forward"))
              if (f.kind == Value::Kind::function) methods.push_back(f);
          bool found = !methods.empty();
          call_targets(methods, out);
          if (!found)
            for (const auto& c : calls)
              if (c.kind == Value::Kind::external) out.emplace_back("?" + c.text.str(), EdgeKind::call);
          break;
        }
        case Value::Kind::external:
          out.emplace_back("?" + v.text.str(), EdgeKind::call);
          break;
        case Value::Kind::module:
        case Value::Kind::super_:
          break;
      }
    }
  }

  /// map(f, xs), sorted(xs, key=f): a library function that calls the functions it is given
  /// (builtins.h) makes its caller call them. Only repository functions and classes passed to it
  /// count (an iterable passed beside them is not called).
  void link_called_arguments(const std::vector<Value>& callee, const RawReference& reference, int g,
                             std::vector<std::pair<std::string, EdgeKind>>& targets) {
    if (reference.kind != EdgeKind::call || reference.arguments.empty()) return;
    bool higher_order = callee.empty() ? calls_its_arguments(reference.text) : true;
    for (const auto& v : callee)
      higher_order &= v.kind == Value::Kind::external && calls_its_arguments(v.text.str());
    if (!higher_order) return;
    std::vector<Value> called;
    for (const auto& argument : reference.arguments) {
      std::size_t equals = argument.find('=');
      std::string text = equals == std::string::npos ? argument : argument.substr(equals + 1);
      if (text.empty()) continue;
      for (const auto& v : resolver_.resolve(text, g))
        if (v.kind == Value::Kind::function || v.kind == Value::Kind::class_) called.push_back(v);
    }
    call_targets(called, targets);
  }

  void link_reference(const RawReference& keyed_reference) {
    // d["k"]() is written "d[=s:k]" for the resolver; everything else (placeholders, name
    // matches) reads the plain "d[]" form.
    std::optional<RawReference> plain;
    if (keyed_reference.text.find("[=") != std::string::npos) {
      plain = keyed_reference;
      plain->text = without_keys(keyed_reference.text);
    }
    const RawReference& reference = plain ? *plain : keyed_reference;
    int g = resolver_.global(module_, reference.scope);
    // A lambda bound by a module- or class-level statement is referenced by that statement's variable.
    std::string from = reference.owner >= 0 ? reader_of(reference) : resolver_.symbol_id(g);
    link_built_fields(from, reference, components(reference.text), g);
    auto values = resolver_.resolve_at(keyed_reference.text, g, reference.line);
    if (reference.kind == EdgeKind::reference) {
      for (const auto& v : values)
        if (v.kind == Value::Kind::function || v.kind == Value::Kind::class_)
          add(from, resolver_.symbol_id(v.id), EdgeKind::reference, reference.line);
      return;
    }
    std::vector<std::pair<std::string, EdgeKind>> targets;
    call_targets(values, targets);
    if (!reference.keep_unresolved) {
      // e.g. __iter__ of a list or a tensor: only a repository hit is an edge.
      std::erase_if(targets, [](const auto& t) { return t.first.starts_with("?"); });
      if (targets.empty()) return;
    }
    if (targets.empty()) {
      targets.emplace_back("?" + reference.text, EdgeKind::call);
      link_unresolved_call(from, reference, g);
    } else if (reference.kind == EdgeKind::call) {
      link_call_on_container_element(from, reference, g);
    }
    link_called_arguments(values, reference, g, targets);
    for (const auto& [to, kind] : targets) {
      add(from, to, kind, reference.line);
      if (reference.kind == EdgeKind::decorates && reference.decorated >= 0)
        add(resolver_.symbol_id(resolver_.global(module_, reference.decorated)), to, EdgeKind::decorates,
            reference.line);
    }
  }

  const std::vector<ModuleRecord>& modules_;
  std::vector<FileFacts>& files_;
  Resolver resolver_;
  LinkOrder order_;
  int module_ = 0;
  /// An edge of the module being linked, by the resolver's interned texts: the same edge made twice is kept once.
  struct EdgeKey {
    std::uint32_t from, to;
    int line;
    EdgeKind kind;
    bool operator==(const EdgeKey&) const = default;
  };
  struct EdgeKeyHash {
    std::size_t operator()(const EdgeKey& k) const {
      std::uint64_t h = (std::uint64_t{k.from} << 32 | k.to) * 0x9E3779B97F4A7C15ull;
      return h ^ (static_cast<std::uint64_t>(k.line) << 8 | static_cast<std::uint64_t>(k.kind));
    }
  };
  std::unordered_set<EdgeKey, EdgeKeyHash> seen_;
  /// Variables by global scope and name.
  std::unordered_map<int, std::unordered_map<std::string, std::vector<std::string>>> variables_;
  std::unordered_set<std::string> variable_names_;
  /// Class-level variables by name: (module, symbol id).
  std::unordered_map<std::string, std::vector<std::pair<int, std::string>>> class_variables_;
  std::set<std::string> name_matched_;
  std::unordered_set<std::string> built_names_;  ///< names of classes built_by_library
  std::unordered_set<int> hubs_;  ///< classes whose built_fields_hub edges are made
  InternedEdges edges_;  ///< what linking adds to files_, as strings only once the records are freed
};

}  // namespace

RepositoryFacts link_modules(std::vector<ModuleRecord> modules, const std::map<std::string, std::string>& package_aliases,
                             bool release, LinkOrder order, Resolver::OrderIndependenceStats* stats) {
  RepositoryFacts out;
  out.files.reserve(modules.size());
  for (const auto& m : modules) out.files.push_back(m.facts);
  auto kept = std::make_unique<std::vector<ModuleRecord>>(std::move(modules));
  auto linker = std::make_unique<Linker>(*kept, out.files, package_aliases, order);
  linker->run();
  if (stats) *stats = linker->order_independence_stats();
  if (const auto unsettled = linker->order_independence_stats().unsettled; unsettled > 0)
    out.diagnostics.push_back({Diagnostic::Severity::warning, "", 0,
                               "the resolver kept " + std::to_string(unsettled) +
                                   " answers cut short by its depth limit (a bound on asking them again was reached): "
                                   "calls reached only through them may have no edge"});
  // The memo is in an arena and frees at once; the records are cheap to free and a sixth of the
  // peak (the linker refers to them only while it runs). Only then do the linked edges become
  // strings, so that the two are never held together.
  linker->release_memo();
  kept.reset();
  linker->expand_edges();
  // The linker's other tables (many small allocations, slower to free than to leave) are left to the
  // exit where the process ends soon.
  if (!release) linker.release();
  return out;
}

}  // namespace fastci::frontend::python
