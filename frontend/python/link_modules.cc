#include "frontend/python/link_modules.h"

#include <unordered_set>

#include "frontend/python/pytest_discovery.h"
#include "frontend/python/resolver.h"

namespace fastci::frontend::python {
namespace {

class Linker {
 public:
  Linker(const std::vector<ModuleRecord>& modules, std::vector<FileFacts>& files,
         const std::map<std::string, std::string>& package_aliases)
      : modules_(modules), files_(files), resolver_(modules, package_aliases) {}

  void run() {
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      module_ = static_cast<int>(m);
      seen_.clear();
      link_structure();
      link_imports();
      for (const auto& reference : modules_[m].references) link_reference(reference);
    }
    discover_tests(resolver_, files_);
  }

 private:
  void add(const std::string& from, const std::string& to, EdgeKind kind, int line) {
    std::string key = from;
    key += '\x1f';
    key += to;
    key += '\x1f';
    key += std::to_string(static_cast<int>(kind));
    key += '\x1f';
    key += std::to_string(line);
    if (!seen_.insert(std::move(key)).second) return;
    files_[module_].edges.push_back({from, to, kind, files_[module_].path, line});
  }

  /// contains: module -> top-level definitions, class -> its definitions; override edges.
  void link_structure() {
    const auto& scopes = modules_[module_].scopes;
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
          out.emplace_back(resolver_.symbol_id(v.id), EdgeKind::call);
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
            else if (init.kind == Value::Kind::external) out.emplace_back("?" + init.text, EdgeKind::call);
          }
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
              if (c.kind == Value::Kind::external) out.emplace_back("?" + c.text, EdgeKind::call);
          break;
        }
        case Value::Kind::external:
          out.emplace_back("?" + v.text, EdgeKind::call);
          break;
        case Value::Kind::module:
        case Value::Kind::super_:
          break;
      }
    }
  }

  void link_reference(const RawReference& reference) {
    int g = resolver_.global(module_, reference.scope);
    std::string from = resolver_.symbol_id(g);
    auto values = resolver_.resolve(reference.text, g);
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
    if (targets.empty()) targets.emplace_back("?" + reference.text, EdgeKind::call);
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
  int module_ = 0;
  std::unordered_set<std::string> seen_;
};

}  // namespace

RepositoryFacts link_modules(std::vector<ModuleRecord> modules, const std::map<std::string, std::string>& package_aliases) {
  RepositoryFacts out;
  out.files.reserve(modules.size());
  for (const auto& m : modules) out.files.push_back(m.facts);
  Linker(modules, out.files, package_aliases).run();
  return out;
}

}  // namespace fastci::frontend::python
