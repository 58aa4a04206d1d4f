#include "frontend/python/resolver.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <utility>

namespace fastci::frontend::python {

/// One component of a dotted text: a name and what follows it ("(a,b)" calls, "[]" subscripts).
struct Component {
  std::string name;
  std::string suffixes;
  std::vector<std::vector<std::string>> arguments;  ///< per suffix: the call's argument texts
};

namespace {

/// Resolution deeper than this (long alias chains, mutual returns) gives up: nothing, not a crash.
constexpr int kMaxDepth = 48;
/// Bounds on answering cut questions from the top (Resolver::settle_cuts): rounds per outermost
/// question, questions asked from the top within one another, and such questions per outermost one.
constexpr int kMaxSettleRounds = 4;
constexpr int kMaxSettleNesting = 16;
constexpr int kMaxSettleAsks = 4096;
/// Rounds of the index of parameter calls (Resolver::prepare_indexes).
constexpr int kMaxIndexRounds = 4;

struct DepthGuard {
  int& depth;
  explicit DepthGuard(int& d) : depth(d) { ++depth; }
  ~DepthGuard() { --depth; }
};

/// The top-level comma-separated parts of `text` (parentheses nest).
std::vector<std::string> split_arguments(std::string_view text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
  }
  out.push_back(std::move(current));
  return out;
}

/// A call of a torch.nn.Module method that returns the module: model.cuda(), .to(...), .eval().
bool returns_receiver(const Component& c) {
  static const std::unordered_set<std::string> kNames = {"cuda", "cpu", "to", "float", "half", "bfloat16", "double",
                                                         "train", "eval", "requires_grad_", "type", "to_empty"};
  return !c.suffixes.empty() && c.suffixes[0] == '(' && kNames.count(c.name) > 0;
}

std::vector<Component> split_components(const std::string& text) {
  std::vector<Component> out;
  std::size_t i = 0;
  while (i < text.size()) {
    Component c;
    while (i < text.size() && text[i] != '.' && text[i] != '(' && text[i] != '[') c.name += text[i++];
    while (i < text.size() && (text[i] == '(' || text.compare(i, 2, "[]") == 0 || text.compare(i, 2, "[=") == 0)) {
      if (text[i] == '[' && text[i + 1] == ']') {
        c.suffixes += '[';
        c.arguments.emplace_back();
        i += 2;
        continue;
      }
      if (text[i] == '[') {  // "[=s:key]": a subscript with a constant key, kept as its argument
        std::size_t close = text.find(']', i);
        if (close == std::string::npos) return {};
        c.suffixes += '[';
        c.arguments.push_back({text.substr(i + 2, close - i - 2)});
        i = close + 1;
        continue;
      }
      std::size_t close = i + 1;
      for (int depth = 1; close < text.size(); ++close) {
        if (text[close] == '(') ++depth;
        if (text[close] == ')' && --depth == 0) break;
      }
      if (close >= text.size()) return {};  // unbalanced: not a dotted text
      c.suffixes += '(';
      c.arguments.push_back(split_arguments(std::string_view(text).substr(i + 1, close - i - 1)));
      i = close + 1;
    }
    if (i < text.size() && text[i] == '.') ++i;
    else if (i < text.size()) return {};  // not a dotted text
    out.push_back(std::move(c));
  }
  return out;
}

/// Values kept per expression: a name bound many ways stays useful and cheap. Library values
/// (placeholders, which only name what is outside the repository) are capped lower, so that they never
/// crowd out repository code: a parameter that many call sites pass library objects to still
/// reaches the repository functions some other site passes.
constexpr std::size_t kMaxValues = 48;
constexpr std::size_t kMaxExternalValues = 12;

void append_unique(std::vector<Value>& out, const Value& v) {
  if (out.size() >= kMaxValues) return;
  std::size_t externals = 0;
  for (const auto& existing : out) {
    if (existing.kind == v.kind && existing.id == v.id && existing.text == v.text &&
        existing.receiver == v.receiver && existing.behind_wrapper == v.behind_wrapper)
      return;
    externals += existing.kind == Value::Kind::external;
  }
  if (v.kind == Value::Kind::external && externals >= kMaxExternalValues) return;
  out.push_back(v);
}

/// The constants of `more` not among `out` yet, added to it.
void add_keys(std::vector<std::string>& out, std::vector<std::string> more) {
  for (auto& key : more)
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(std::move(key));
}

int common_prefix(const std::string& a, const std::string& b) {
  std::size_t n = std::min(a.size(), b.size()), i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return static_cast<int>(i);
}

}  // namespace

Resolver::Resolver(const std::vector<ModuleRecord>& modules, const std::map<std::string, std::string>& package_aliases)
    : modules_(modules) {
  // Sized for the answers a repository keeps (1.1 per reference on Megatron-LM: 464,000): growing
  // the memo by rehashing while it fills cost more than the buckets; more than it keeps cost memory
  // (6 per reference held 20 MB of empty buckets there).
  std::size_t references = 0;
  for (const auto& m : modules_) references += m.references.size();
  memo_.reserve(references * 3 / 2);
  texts_.reserve(references);
  for (std::size_t m = 0; m < modules_.size(); ++m) {
    offsets_.push_back(static_cast<int>(scope_module_.size()));
    for (std::size_t s = 0; s < modules_[m].scopes.size(); ++s) {
      scope_module_.push_back(static_cast<int>(m));
      std::vector<std::pair<std::string_view, int>> index;
      const auto& bindings = modules_[m].scopes[s].bindings;
      for (std::size_t b = 0; b < bindings.size(); ++b) index.emplace_back(bindings[b].name, static_cast<int>(b));
      std::stable_sort(index.begin(), index.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      binding_index_.push_back(std::move(index));
    }
    const std::string& name = modules_[m].module_name;
    module_index_.emplace(name, static_cast<int>(m));
    for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
      packages_.insert(name.substr(0, dot));
  }
  // `import unit.common` from tests/unit/test_x.py: pytest (and scripts) put a folder on sys.path,
  // and below it a module is importable by the rest of its name. Only a folder without __init__.py
  // is such a root: a package's folder is not on sys.path, so `import torch` inside
  // deepspeed/comm/torch.py (or anywhere in DeepSpeed) is the library, not that module.
  for (std::size_t m = 0; m < modules_.size(); ++m) {
    const std::string& name = modules_[m].module_name;
    for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
      if (!module_index_.count(name.substr(0, dot))) by_suffix_[name.substr(dot + 1)].push_back(static_cast<int>(m));
  }
  for (const auto& [alias, target] : package_aliases)
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      const std::string& name = modules_[m].module_name;
      if (name != target && !name.starts_with(target + ".")) continue;
      const std::string aliased = alias + name.substr(target.size());
      module_index_.emplace(aliased, static_cast<int>(m));
      for (std::size_t dot = aliased.find('.'); dot != std::string::npos; dot = aliased.find('.', dot + 1))
        packages_.insert(aliased.substr(0, dot));
    }
}

void Resolver::prepare_indexes() {
  if (!calls_indexed_) index_calls();
  if (!parameter_calls_resolved_ && !resolving_parameter_calls_) {
    // Each round resolves the calls of parameters with the flow the index of the round before gives
    // (a callback passed on into another callback), from a fresh memo, until the index stays the same.
    for (int round = 0; round < kMaxIndexRounds; ++round) {
      auto before = parameter_calls_by_target_;
      forget_answers();
      index_parameter_calls();
      ++order_independence_stats_.index_rounds;
      if (parameter_calls_by_target_ == before) break;
    }
    // What was answered while the index was built, with the flow of the index before: asked again.
    forget_answers();
  }
  if (!subclasses_built_) build_subclasses();
}

const Scope& Resolver::scope(int global_scope) const {
  int m = scope_module_[global_scope];
  return modules_[m].scopes[global_scope - offsets_[m]];
}

bool Resolver::is_repository_module(const std::string& name) const {
  return module_index_.count(name) > 0 || packages_.count(name) > 0;
}

int Resolver::find_module(std::string_view name, int from_module) const {
  std::string key(name);
  auto exact = module_index_.find(key);
  if (exact != module_index_.end()) return exact->second;
  auto suffix = by_suffix_.find(key);
  if (suffix == by_suffix_.end()) return -1;
  // The import names a module below a sys.path root inside the repository (tests/unit/x.py
  // imported as unit.x): take the candidate nearest to the importing file.
  int best = -1, best_score = -1;
  const std::string& from = from_module >= 0 ? modules_[from_module].module_name : std::string();
  for (int candidate : suffix->second) {
    int score = common_prefix(modules_[candidate].module_name, from);
    if (score > best_score) best = candidate, best_score = score;
  }
  return best;
}

std::vector<Value> Resolver::fixture_values(int function_scope, const std::string& name) {
  // pytest passes a test (or fixture) the value of the fixture its parameter names: a fixture method
  // of the test's class or of a class it inherits from, else the fixture function's return in the
  // same module, else in the nearest conftest.py of an enclosing package.
  if (const int local_parent = scope(function_scope).parent; local_parent >= 0) {
    const int owner = global(module_of(function_scope), local_parent);
    if (scope(owner).kind == Scope::Kind::class_) {
      const std::vector<int> order = mro(owner);  // a copy: resolving may reuse mro's storage
      for (int cls : order) {
        const int m = module_of(cls);
        const int local = cls - global(m, 0);
        const auto& scopes = modules_[m].scopes;
        std::vector<Value> out;
        for (std::size_t i = 1; i < scopes.size(); ++i)
          if (scopes[i].is_fixture && scopes[i].fixture_name == name && scopes[i].parent == local)
            for (const auto& v : returns_of(global(m, static_cast<int>(i)))) append_unique(out, v);
        if (!out.empty()) return out;
      }
    }
  }
  auto package_of = [](const std::string& dotted) {
    auto dot = dotted.rfind('.');
    return dot == std::string::npos ? std::string() : dotted.substr(0, dot);
  };
  if (!conftests_) {
    conftests_.emplace();
    for (int m = 0; m < static_cast<int>(modules_.size()); ++m) {
      const std::string& candidate = modules_[m].module_name;
      if (candidate == "conftest" || candidate.ends_with(".conftest")) conftests_->push_back(m);
    }
    std::sort(conftests_->begin(), conftests_->end(), [&](int a, int b) {
      return modules_[a].module_name.size() > modules_[b].module_name.size();  // deepest first
    });
  }
  const int own = module_of(function_scope);
  const std::string package = package_of(modules_[own].module_name);
  std::vector<int> candidates = {own};
  for (int m : *conftests_) {
    std::string folder = package_of(modules_[m].module_name);
    if (m != own && (folder.empty() || package == folder || package.starts_with(folder + "."))) candidates.push_back(m);
  }
  std::vector<Value> out;
  for (int m : candidates) {
    const auto& scopes = modules_[m].scopes;
    for (std::size_t i = 1; i < scopes.size(); ++i)
      if (scopes[i].is_fixture && scopes[i].fixture_name == name && scopes[i].parent == 0)
        for (const auto& v : resolve(scopes[i].name + "()", global(m, 0))) append_unique(out, v);
    if (!out.empty()) break;
  }
  return out;
}

Value Resolver::module_value(const std::string& name) const {
  Value v;
  v.kind = Value::Kind::module;
  v.text = stored(name);
  auto it = module_index_.find(name);
  v.id = it == module_index_.end() ? -1 : it->second;
  return v;
}

std::vector<const NameBinding*> Resolver::bindings_named(int global_scope, std::string_view name) const {
  std::vector<const NameBinding*> out;
  const auto& index = binding_index_[global_scope];
  auto range = std::equal_range(index.begin(), index.end(), std::make_pair(name, 0),
                                [](const auto& a, const auto& b) { return a.first < b.first; });
  const Scope& s = scope(global_scope);
  for (auto it = range.first; it != range.second; ++it) out.push_back(&s.bindings[it->second]);
  return out;
}

std::uint32_t Resolver::intern(std::string_view text) {
  if (auto it = texts_.find(text); it != texts_.end()) return it->second;
  auto id = static_cast<std::uint32_t>(texts_.size());
  texts_.emplace(std::string(text), id);
  return id;
}

std::vector<const std::string*> Resolver::texts_by_number() const {
  std::vector<const std::string*> out(texts_.size());
  for (const auto& [text, number] : texts_) out[number] = &text;
  return out;
}

void Resolver::release_texts() { decltype(texts_)().swap(texts_); }

StoredText Resolver::stored(std::string_view text) const {
  // The table's keys live in its nodes, which never move.
  auto it = texts_.find(text);
  if (it == texts_.end()) it = texts_.emplace(std::string(text), static_cast<std::uint32_t>(texts_.size())).first;
  return StoredText(&it->first);
}

StoredText Resolver::extended(const StoredText& text, std::string_view suffix) const {
  std::string longer = text.str();
  longer += suffix;
  // A value that feeds itself (`x = x.f()`, `s = s()`) would grow by the same suffix on every
  // round of its cycle and never settle: a third repeat of the same ending is the value itself.
  constexpr std::size_t kLongestRepeat = 64;
  const std::size_t size = longer.size();
  for (std::size_t n = suffix.size(); n <= kLongestRepeat && 3 * n <= size; ++n) {
    if (longer[size - 1 - n] != longer[size - 1]) continue;  // the unit before does not end alike
    std::string_view end(longer.data() + size - n, n);
    if (std::string_view(longer.data() + size - 2 * n, n) == end && std::string_view(longer.data() + size - 3 * n, n) == end)
      return text;
  }
  return stored(longer);
}

std::uint64_t Resolver::memo_key(char tag, std::uint32_t subject, std::string_view text) {
  return (static_cast<std::uint64_t>(static_cast<unsigned char>(tag)) << 56) |
         (static_cast<std::uint64_t>(subject & 0xFFFFFFu) << 32) | intern(text);
}

namespace {
bool same_values(const std::vector<Value>& a, const std::vector<Value>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Value& x, const Value& y) {
    return x.kind == y.kind && x.id == y.id && x.text == y.text && x.exact == y.exact && x.receiver == y.receiver &&
           x.behind_wrapper == y.behind_wrapper;
  });
}

/// How often the question at the head of a cycle is asked again while its answer still grows.
constexpr int kMaxRounds = 6;
constexpr int kNoCycle = std::numeric_limits<int>::max();
}  // namespace

template <class Describe, class Compute>
std::vector<Value> Resolver::memoized(std::uint64_t key, bool counts_depth, Describe&& describe, Compute&& compute) {
  if (auto it = memo_.find(key); it != memo_.end()) {
    if (!provisional_lows_.empty())
      if (auto p = provisional_lows_.find(key); p != provisional_lows_.end()) low_ = std::min(low_, p->second);
    if (!tainted_.empty() && tainted_.count(key)) cut_ = true;
    return {it->second.begin(), it->second.end()};
  }
  if (auto open = open_.find(key); open != open_.end()) {
    // A cycle: this question is still being answered further up; what it has so far.
    low_ = std::min(low_, open->second.first);
    return open->second.second;
  }
  if (depth_ > kMaxDepth) {
    // Too deep to answer here: nothing for now, and the question is asked again from the top
    // (settle_cuts) before the outermost question above it keeps an answer.
    cut_ = true;
    cuts_.push_back(describe());
    return {};
  }
  const bool outermost = open_.empty();
  if (outermost && settle_nesting_ == 0) settle_asks_ = 0;
  std::optional<DepthGuard> guard;
  if (counts_depth) guard.emplace(depth_);
  const int position = static_cast<int>(open_.size());
  const std::size_t mark = provisional_.size();
  const int outer_low = low_;
  const bool outer_cut = std::exchange(cut_, false);
  std::vector<Value> answer;
  for (int settled = 0;; ++settled) {
    for (int round = 1;; ++round) {
      open_[key] = {position, answer};
      low_ = kNoCycle;
      std::vector<Value> next = compute();
      open_.erase(key);
      if (low_ < position) {
        // It leaned on a question still open above it: right only until that one is answered.
        memo_[key].assign(next.begin(), next.end());
        provisional_.push_back(key);
        provisional_lows_[key] = low_;
        if (cut_) tainted_.insert(key);
        low_ = std::min(outer_low, low_);
        cut_ = cut_ || outer_cut;
        return next;
      }
      // What was answered provisionally inside leaned on this question's partial answer: asked again later.
      for (std::size_t i = mark; i < provisional_.size(); ++i) {
        memo_.erase(provisional_[i]);
        provisional_lows_.erase(provisional_[i]);
      }
      provisional_.resize(mark);
      const bool again = low_ == position && !same_values(next, answer) && round < kMaxRounds;
      answer = std::move(next);
      if (!again) break;
    }
    // An answer that leaned on a cut question is final only once those were answered from the
    // top: the outermost question settles them and is asked again.
    if (!cut_ || !outermost || !settle_cuts(settled)) break;
    answer.clear();
    cut_ = false;
  }
  memo_[key].assign(answer.begin(), answer.end());
  if (cut_) tainted_.insert(key);
  low_ = outer_low;
  cut_ = cut_ || outer_cut;
  return answer;
}

bool Resolver::settle_cuts(int rounds_done) {
  std::vector<Question> cuts = std::move(cuts_);
  cuts_.clear();
  std::unordered_set<std::uint64_t> tainted = std::move(tainted_);
  tainted_.clear();
  if (rounds_done >= kMaxSettleRounds || settle_nesting_ >= kMaxSettleNesting || settle_asks_ >= kMaxSettleAsks) {
    // Past the bound, what the limit cut short stays so (counted; the answers then depend on
    // which question came first, as they all did before).
    ++order_independence_stats_.unsettled;
    cut_ = false;
    return false;
  }
  for (std::uint64_t k : tainted) {
    memo_.erase(k);
    provisional_lows_.erase(k);
  }
  ++settle_nesting_;
  const int depth = std::exchange(depth_, 0);
  std::unordered_set<std::uint64_t> asked;
  for (const Question& q : cuts) {
    if (!asked.insert(q.key).second) continue;
    if (q.kind == 'C' ? mro_.count(q.subject) > 0 : memo_.count(q.key) > 0) continue;
    ++settle_asks_;
    ++order_independence_stats_.asked_from_the_top;
    ask(q);
  }
  depth_ = depth;
  --settle_nesting_;
  return true;
}

void Resolver::ask(const Question& q) {
  switch (q.kind) {
    case 'L': lookup(q.subject, q.text); break;
    case 'M': module_attribute(q.module, q.text); break;
    case 'E': resolve(q.text, q.subject); break;
    case 'F': resolve_at(q.text, q.subject, q.line); break;
    case 'S': super_attribute(q.subject, q.text); break;
    case 'A': class_attribute(q.subject, q.text, q.line & 1, q.line & 2, q.line & 4); break;
    case 'P': parameter_flow(q.subject, q.text); break;
    case 'R': returns_of(q.subject); break;
    case 'C': mro(q.subject); break;
    default: break;
  }
}

bool Resolver::star_exports(int module, const std::string& name) const {
  const auto& exports = modules_[module].star_exports;
  if (exports) return std::find(exports->begin(), exports->end(), name) != exports->end();
  return !name.empty() && name[0] != '_';
}

std::vector<Value> Resolver::lookup(int global_scope, const std::string& name) {
  const auto key = memo_key('L', global_scope, name);
  return memoized(key, true, [&] { return Question{key, 'L', global_scope, name}; }, [&] {
    std::vector<Value> out;
    int g = global_scope;
    bool first = true;
    while (true) {
      const Scope& s = scope(g);
      if (s.kind == Scope::Kind::module) {
        for (const auto& v : module_attribute(modules_[module_of(g)].module_name, name)) append_unique(out, v);
        if (out.empty()) {
          // A module-level name with no value the linker follows still shadows builtins.
          auto bindings = bindings_named(g, name);
          (void)bindings;
        }
        break;
      }
      if (s.kind != Scope::Kind::class_ || first) {
        auto bindings = bindings_named(g, name);
        if (!bindings.empty()) {
          for (const NameBinding* b : bindings)
            for (const auto& v : binding_values(g, *b)) append_unique(out, v);
          if (!only_comprehension_variables(bindings)) break;
        }
      }
      first = false;
      g = global(module_of(g), s.parent);
    }
    return out;
  });
}

std::vector<Value> Resolver::binding_values(int global_scope, const NameBinding& b) {
  int m = module_of(global_scope);
  // a module-level name assigned in a function under `global`: its value reads that function's names
  if (b.scope >= 0 && b.kind != NameBinding::Kind::definition && scope(global_scope).kind == Scope::Kind::module)
    global_scope = global(m, b.scope);
  switch (b.kind) {
    case NameBinding::Kind::definition: {
      int target = global(m, b.scope);
      Value v;
      v.kind = scope(target).kind == Scope::Kind::class_ ? Value::Kind::class_ : Value::Kind::function;
      v.id = target;
      v.behind_wrapper = v.kind == Value::Kind::function && wrapped_by_decorators(target);
      return {v};
    }
    case NameBinding::Kind::module_import: {
      int found = find_module(b.target, m);
      if (found >= 0) return {module_value(modules_[found].module_name)};
      if (packages_.count(b.target)) return {module_value(b.target)};
      // `import a.b` where only a.b's files exist below a sys.path root (tests/unit/...).
      if (!b.member.empty() && b.member != b.target) {
        int deep = find_module(b.member, m);
        if (deep >= 0) {
          const std::string& full = modules_[deep].module_name;
          std::string root = full.substr(0, full.size() - b.member.size()) + b.target;
          if (is_repository_module(root)) return {module_value(root)};
        }
      }
      Value v;
      v.kind = Value::Kind::external;
      v.text = stored(b.target);
      return {v};
    }
    case NameBinding::Kind::from_import: {
      int found = find_module(b.target, m);
      std::string module_name = found >= 0 ? modules_[found].module_name : b.target;
      if (found >= 0 || packages_.count(b.target)) {
        auto values = module_attribute(module_name, b.member);
        if (!values.empty()) return values;
        // `from . import zero` in a package's __init__: the submodule (module_attribute is
        // already asking about this very name, so it answered nothing).
        if (is_repository_module(module_name + "." + b.member)) return {module_value(module_name + "." + b.member)};
      }
      Value v;
      v.kind = Value::Kind::external;
      v.text = stored(b.target.empty() ? b.member : b.target + "." + b.member);
      return {v};
    }
    case NameBinding::Kind::alias: {
      auto values = resolve(b.target, global_scope);
      if (b.member == "@element") return element_values(b.target, values, global_scope);
      if (b.member == "@enter" || b.member == "@aenter")
        return entered_values(values, b.member == "@enter" ? "__enter__" : "__aenter__");
      if (b.member == "@decorated") {
        // What a decorator returns matters when it is repository code (a wrapper that calls the
        // function); torch.no_grad()(f) and friends add nothing to the function itself.
        std::erase_if(values, [](const Value& v) { return v.kind == Value::Kind::external; });
      }
      return values;
    }
    case NameBinding::Kind::call_result:
      return resolve(b.target + "(" + b.member + ")", global_scope);
    case NameBinding::Kind::parameter: {
      const Scope& s = scope(global_scope);
      int parent = global(m, s.parent);
      bool receiver = s.kind == Scope::Kind::function && !s.is_staticmethod && !s.parameters.empty() &&
                      s.parameters.front() == b.name && scope(parent).kind == Scope::Kind::class_;
      if (!receiver) {
        // An annotated parameter (x: Engine, Optional[Engine]) holds an instance of that class or
        // of a subclass; any parameter holds what the repository's calls pass to it.
        std::vector<Value> out;
        if (!b.target.empty()) {
          for (auto v : resolve(b.target, parent)) {
            if (v.kind != Value::Kind::class_) continue;
            v.kind = Value::Kind::instance;
            v.exact = false;
            append_unique(out, v);
          }
        }
        if (!b.member.empty())  // the default, evaluated where the function is defined
          for (const auto& v : resolve(b.member, parent)) append_unique(out, v);
        if (s.kind == Scope::Kind::function)
          for (const auto& v : parameter_flow(global_scope, b.name)) append_unique(out, v);
        if (out.empty() && b.member.empty())
          for (const auto& v : fixture_values(global_scope, b.name)) append_unique(out, v);
        return out;
      }
      if (scope(parent).kind != Scope::Kind::class_) return {};
      Value v;
      v.kind = s.is_classmethod || s.name == "__new__" ? Value::Kind::class_ : Value::Kind::instance;
      v.id = parent;
      v.exact = false;
      return {v};
    }
    case NameBinding::Kind::other:
    case NameBinding::Kind::star_import:
      return {};
  }
  return {};
}

std::vector<Value> Resolver::module_attribute(const std::string& module, const std::string& name) {
  const auto key = memo_key('M', intern(module), name);
  return memoized(key, true, [&] { return Question{key, 'M', -1, name, module}; }, [&] {
    std::vector<Value> out;
    auto index = module_index_.find(module);
    if (index != module_index_.end()) {
      int g = global(index->second, 0);
      auto bindings = bindings_named(g, name);
      for (const NameBinding* b : bindings)
        for (const auto& v : binding_values(g, *b)) append_unique(out, v);
      if (out.empty() && bindings.empty()) {
        // `from a import *` then `from b import *`: b's name replaces a's where the later import
        // certainly ran (a statement of the module's own body); one inside `try` or `if` may not
        // have, so what the earlier ones bind stays possible.
        const auto& all = scope(g).bindings;
        for (auto b = all.rbegin(); b != all.rend(); ++b) {
          if (b->kind != NameBinding::Kind::star_import) continue;
          int found = find_module(b->target, index->second);
          if (found < 0 || !star_exports(found, name)) continue;
          auto values = module_attribute(modules_[found].module_name, name);
          for (const auto& v : values) append_unique(out, v);
          if (!values.empty() && b->statement_first > 0) break;
        }
      }
    }
    if (out.empty() && is_repository_module(module + "." + name)) {
      out.push_back(module_value(module + "." + name));
    }
    return out;
  });
}

std::vector<Value> Resolver::resolve(const std::string& text, int global_scope) {
  const auto key = memo_key('E', global_scope, text);
  return memoized(key, false, [&] { return Question{key, 'E', global_scope, text}; }, [&] {
    auto values = resolve_uncached(text, global_scope);
    return values;
  });
}

Resolver::FlowCut Resolver::flow_cut(int global_scope, std::string_view name, int line) const {
  FlowCut cut;
  for (const NameBinding* b : bindings_named(global_scope, name)) {
    if (b->statement_last == 0 || (b->scope >= 0 && b->kind != NameBinding::Kind::definition)) continue;
    if (b->statement_last < line) cut.first = std::max(cut.first, b->statement_first);
    else if (b->statement_first > line) cut.next = cut.next == 0 ? b->statement_first : std::min(cut.next, b->statement_first);
  }
  return cut;
}

std::vector<Value> Resolver::resolve_at(const std::string& text, int global_scope, int line) {
  std::string_view head = std::string_view(text).substr(0, text.find_first_of(".(["));
  if (head.empty() || head[0] == '@') return resolve(text, global_scope);
  const FlowCut cut = flow_cut(global_scope, head, line);
  const bool keyed = text.find("[=") != std::string::npos;
  if (!keyed && cut.first == 0 && cut.next == 0) return resolve(text, global_scope);
  // Keyed elements are cut at the line itself; plain names only by the statements around it.
  const std::string position = keyed ? std::to_string(line) : std::to_string(cut.first) + ':' + std::to_string(cut.next);
  const auto key = memo_key('F', global_scope, text + '\x1f' + position);
  return memoized(key, false, [&] { return Question{key, 'F', global_scope, text, {}, line}; }, [&] {
    flow_cut_ = cut;
    flow_line_ = line;
    auto values = resolve_uncached(text, global_scope);
    flow_cut_ = {};
    flow_line_ = 0;
    return values;
  });
}

int Resolver::binding_scope(int global_scope, const std::string& name) const {
  for (int g = global_scope, first = 1;; first = 0) {
    const Scope& s = scope(g);
    if (s.kind != Scope::Kind::class_ || first) {
      auto bindings = bindings_named(g, name);
      if (!bindings.empty() && (!only_comprehension_variables(bindings) || s.kind == Scope::Kind::module)) return g;
    }
    if (s.kind == Scope::Kind::module) return -1;
    g = global(module_of(g), s.parent);
  }
}

bool Resolver::binds_prefix(int global_scope, std::string_view prefix) const {
  const auto& index = binding_index_[global_scope];
  auto it = std::lower_bound(index.begin(), index.end(), prefix,
                             [](const auto& a, std::string_view p) { return a.first < p; });
  return it != index.end() && it->first.starts_with(prefix);
}

std::vector<Value> Resolver::keyed_element(int home, const std::string& name, const std::vector<std::string>& unkeyed,
                                           int line) {
  std::vector<Value> out;
  const FlowCut cut = line > 0 ? flow_cut(home, name, line) : FlowCut{};
  if (cut.first > 0 || cut.next > 0) {
    out = lookup_between(home, name, cut);
  } else {
    for (const NameBinding* b : bindings_named(home, name))
      for (const auto& v : binding_values(home, *b)) append_unique(out, v);
  }
  for (const auto& plain : unkeyed)
    for (const NameBinding* b : bindings_named(home, plain))
      if (!b->has_key)
        for (const auto& v : binding_values(home, *b)) append_unique(out, v);
  return out;
}

std::vector<std::string> Resolver::element_keys(int home, const std::string& root, const std::string& keyed,
                                               const std::string& argument, int global_scope) {
  std::vector<std::string> constants;
  if (argument.starts_with("v:")) {
    auto certain = constant_keys(argument.substr(2), global_scope);
    if (!certain) return {};
    constants = std::move(*certain);
  } else {
    constants = {argument};
  }
  std::vector<std::string> keys;
  for (const auto& constant : constants) {
    std::string by_key = keyed_element_name(keyed, constant);
    bool found = binds_prefix(home, by_key);
    if (found) keys.push_back(std::move(by_key));
    if (constant.starts_with("i:")) {
      // xs[1] of a literal [f, g]: g, unless the positions may have moved since.
      std::string by_position = keyed_element_name(keyed, "p:" + constant.substr(2));
      if (binds_prefix(home, by_position)) {
        if (positions_may_move(root)) return {};
        keys.push_back(std::move(by_position));
        found = true;
      }
    }
    if (!found) return {};  // a key nothing was stored under: no telling what is read
  }
  return keys;
}

std::optional<std::vector<std::string>> Resolver::constant_keys(const std::string& text, int global_scope, int depth) {
  if (is_literal(text)) return std::vector<std::string>{text.substr(1)};
  if (depth > 8 || text.empty() || text.find_first_of(".([@#") != std::string::npos) return std::nullopt;
  if (rebound_anywhere(text)) return std::nullopt;
  int home = binding_scope(global_scope, text);
  if (home < 0) return std::nullopt;
  std::vector<std::string> out;
  for (const NameBinding* b : bindings_named(home, text)) {
    std::optional<std::vector<std::string>> keys;
    switch (b->kind) {
      case NameBinding::Kind::other:
        if (is_literal(b->target)) keys = std::vector<std::string>{b->target.substr(1)};
        break;
      case NameBinding::Kind::alias:
        if (b->member.empty()) keys = constant_keys(b->target, b->scope >= 0 ? global(module_of(home), b->scope) : home, depth + 1);
        break;
      case NameBinding::Kind::from_import: {
        int found = find_module(b->target, module_of(home));
        if (found >= 0) keys = constant_keys(b->member, global(found, 0), depth + 1);
        break;
      }
      case NameBinding::Kind::parameter:
        keys = parameter_constants(home, *b, depth + 1);
        break;
      default:
        break;
    }
    if (!keys) return std::nullopt;
    add_keys(out, std::move(*keys));
    if (out.size() > 8) return std::nullopt;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<std::vector<std::string>> Resolver::parameter_constants(int function_scope, const NameBinding& parameter,
                                                                      int depth) {
  const Scope& f = scope(function_scope);
  auto at = std::find(f.parameters.begin(), f.parameters.end(), parameter.name);
  if (f.kind != Scope::Kind::function || at == f.parameters.end()) return std::nullopt;  // *args, **kwargs
  const auto index = static_cast<std::size_t>(at - f.parameters.begin());
  if (index == 0 && is_method(function_scope) && !f.is_classmethod) return std::nullopt;  // the receiver
  std::vector<std::string> out;
  if (!parameter.member.empty()) {  // a default: what every call that leaves it out passes
    if (!is_literal(parameter.member)) return std::nullopt;
    out.push_back(parameter.member.substr(1));
  }
  bool called = false;
  for (auto [m, r] : call_sites(function_scope)) {
    const RawReference& site = modules_[m].references[r];
    int caller = global(m, site.scope);
    int offset = argument_offset(function_scope, site, caller);
    if (offset < 0) continue;
    called = true;
    std::string passed = passed_text(site, parameter.name, index, offset);
    if (passed.empty()) return std::nullopt;  // an expression, or a splat that may hold it
    auto keys = constant_keys(passed, caller, depth + 1);
    if (!keys) return std::nullopt;
    add_keys(out, std::move(*keys));
  }
  // Calls without arguments are not indexed (index_calls): they pass the default or fail.
  if (!called && parameter.member.empty()) return std::nullopt;
  return out;
}

std::string Resolver::passed_text(const RawReference& site, const std::string& name, std::size_t index, int offset) {
  // By keyword, else by position (positional arguments come first and hold no '=').
  std::string passed;
  for (const auto& argument : site.arguments)
    if (argument.size() > name.size() && argument.starts_with(name) && argument[name.size()] == '=')
      passed = argument.substr(name.size() + 1);
  std::size_t position = index - static_cast<std::size_t>(offset);
  if (passed.empty() && index >= static_cast<std::size_t>(offset) && position < site.arguments.size() &&
      site.arguments[position].find('=') == std::string::npos)
    passed = site.arguments[position];
  return passed;
}

bool Resolver::wrapped_by_decorators(int function_scope) {
  if (auto known = wrapped_.find(function_scope); known != wrapped_.end()) return known->second;
  wrapped_[function_scope] = false;  // while it is being answered (a decorator reading the name)
  const bool outer_cut = std::exchange(cut_, false);
  const Scope& f = scope(function_scope);
  const int m = module_of(function_scope);
  const int parent = global(m, f.parent);
  const std::string applied = "(@" + std::to_string(function_scope - offsets_[m]) + ")";
  bool wrapped = false;
  for (const NameBinding* b : bindings_named(parent, f.name)) {
    if (b->kind != NameBinding::Kind::alias || b->member != "@decorated" || !b->target.ends_with(applied)) continue;
    // One decorator: "dec(@3)", "factory(x)(@3)". Stacked ones ("outer(inner(@3))") keep the call,
    // as PyCG's ground truth has it (decorators/nested_decorators beside return_different_func);
    // selection follows reference and call edges alike.
    auto values = binding_values(parent, *b);
    wrapped = !values.empty() && std::all_of(values.begin(), values.end(), [&](const Value& v) {
      return v.kind == Value::Kind::function && v.id != function_scope;
    });
  }
  if (cut_) wrapped_.erase(function_scope);  // asked again once the cut question is answered from the top
  else wrapped_[function_scope] = wrapped;
  cut_ = cut_ || outer_cut;
  return wrapped;
}

bool Resolver::rebound_anywhere(const std::string& name) {
  if (!rebound_) {
    rebound_.emplace();
    for (const auto& m : modules_) rebound_->insert(m.rebound_names.begin(), m.rebound_names.end());
  }
  return rebound_->count(name) > 0;
}

bool Resolver::positions_may_move(const std::string& name) {
  if (rebound_anywhere(name)) return true;
  if (!escaped_) {
    // Anything the container may be reached through besides its own name: an argument (the callee
    // may insert or sort), an alias, an element of another container, an attribute, a return value.
    escaped_.emplace();
    auto note = [&](const std::string& text) {
      if (text.empty() || text.find_first_of("([@#") != std::string::npos) return;
      escaped_->insert(text.substr(text.rfind('.') + 1));
    };
    for (const auto& m : modules_) {
      for (const auto& ref : m.references)
        if (ref.kind == EdgeKind::reference) note(ref.text);
      for (const auto& s : m.scopes) {
        // `for x in xs` and `with xs as x` (a member says how the target is read) hand on elements,
        // not the container.
        for (const auto& b : s.bindings)
          if (b.kind == NameBinding::Kind::alias && b.member.empty()) note(b.target);
        for (const auto& b : s.instance_attributes)
          if (b.kind == NameBinding::Kind::alias && b.member.empty()) note(b.target);
        for (const auto& returned : s.returns) note(returned);
      }
    }
  }
  return escaped_->count(name) > 0;
}

std::vector<Value> Resolver::lookup_between(int global_scope, const std::string& name, FlowCut cut) {
  auto bindings = bindings_named(global_scope, name);
  // What the statement at cut.first bound must be known for it to replace what came before.
  std::vector<Value> decisive;
  if (cut.first > 0)
    for (const NameBinding* b : bindings)
      if (b->statement_first == cut.first)
        for (const auto& v : binding_values(global_scope, *b)) append_unique(decisive, v);
  if (decisive.empty() || std::any_of(decisive.begin(), decisive.end(), [](const Value& v) {
        return v.kind == Value::Kind::external;
      }))
    cut.first = 0;
  std::vector<Value> out;
  for (const NameBinding* b : bindings) {
    bool elsewhere = b->scope >= 0 && b->kind != NameBinding::Kind::definition;  // `global name` in a function
    if (!elsewhere && ((cut.first > 0 && b->line < cut.first) || (cut.next > 0 && b->line >= cut.next))) continue;
    for (const auto& v : binding_values(global_scope, *b)) append_unique(out, v);
  }
  return out.empty() ? lookup(global_scope, name) : out;
}

std::vector<Value> Resolver::resolve_uncached(const std::string& text, int global_scope) {
  const FlowCut cut = std::exchange(flow_cut_, FlowCut{});
  const int line = std::exchange(flow_line_, 0);
  auto components = split_components(text);
  if (components.empty() || components[0].name.empty()) return {};
  DepthGuard guard(depth_);
  std::vector<Value> values;
  const Component& head = components[0];
  std::size_t next = 1;
  if (head.name == "super" && !head.suffixes.empty() && head.suffixes[0] == '(') {
    // super(Cls, obj): Cls names the class to look past; super() inside a method (or a function
    // nested in one): the class that defines the method.
    if (!head.arguments[0].empty() && !head.arguments[0][0].empty())
      for (const auto& named : resolve(head.arguments[0][0], global_scope))
        if (named.kind == Value::Kind::class_) {
          Value v;
          v.kind = Value::Kind::super_;
          v.id = named.id;
          append_unique(values, v);
        }
    int g = global_scope;
    while (values.empty() && scope(g).kind == Scope::Kind::function) {
      int parent = global(module_of(g), scope(g).parent);
      if (scope(parent).kind == Scope::Kind::class_) {
        Value v;
        v.kind = Value::Kind::super_;
        v.id = parent;
        values.push_back(v);
        break;
      }
      g = parent;
    }
    if (values.empty()) return {};
    if (head.suffixes.size() > 1) return {};
  } else if (head.name.size() > 1 && head.name[0] == '@') {
    // "@<local scope index>": a definition itself, before its decorators (see parse_module).
    int local = std::atoi(head.name.c_str() + 1);
    int m = module_of(global_scope);
    if (local <= 0 || local >= static_cast<int>(modules_[m].scopes.size())) return {};
    Value v;
    v.id = global(m, local);
    v.kind = scope(v.id).kind == Scope::Kind::class_ ? Value::Kind::class_ : Value::Kind::function;
    values = {v};
    for (std::size_t k = 0; k < head.suffixes.size() && !values.empty(); ++k)
      values = head.suffixes[k] == '(' ? call_values(values, head.arguments[k], global_scope) : std::vector<Value>{};
  } else {
    values = cut.first > 0 || cut.next > 0 ? lookup_between(global_scope, head.name, cut) : lookup(global_scope, head.name);
    if (head.suffixes.empty() && reads_one_element(components, 1)) {
      // d.get("k")(), d.pop("k"): what d holds, beside what a repository get/pop method returns.
      values = element_or_method(values, resolve(head.name + "[]", global_scope), components[1], global_scope);
      next = 2;
    }
    // The builtin map (no scope binds the name) returns what its function returns.
    const bool builtin_map = values.empty() && head.name == "map";
    std::string element = head.name;  // d, then d[] (what d holds), d[][] while only subscripts follow
    std::string keyed = head.name;    // d, then d[=s:k] while every subscript has a constant key
    int home = -2;                    // the scope whose binding of the head keyed elements are read in
    for (std::size_t k = 0; k < head.suffixes.size(); ++k) {
      if (head.suffixes[k] == '(' && k == 0 && builtin_map) {
        values = mapped_values(head.arguments[k], global_scope);
        element.clear();
      } else if (head.suffixes[k] == '(') {
        values = call_values(values, head.arguments[k], global_scope);
        element.clear();
      } else if (!element.empty()) {
        std::vector<std::string> keys;
        if (!keyed.empty() && !head.arguments[k].empty()) {
          if (home == -2) home = binding_scope(global_scope, head.name);
          if (home >= 0) keys = element_keys(home, head.name, keyed, head.arguments[k][0], global_scope);
        }
        if (!keys.empty()) {
          // d["k"] where the repository stored elements under "k": those, and the elements stored
          // without a constant key (d[name] = f, d.update(other)), not the other keys' elements.
          values.clear();
          for (const auto& key : keys)
            for (const auto& v : keyed_element(home, key, {keyed + "[]", element + "[]"}, home == global_scope ? line : 0))
              append_unique(values, v);
        } else {
          values = lookup(global_scope, element + "[]");
          // A name may hold its own literal's elements and, bound otherwise too, a container made
          // elsewhere (`model = [m]`, then `model = wrap(model)`): both.
          if (element == head.name)
            for (const auto& v : held_elements(global_scope, head.name)) append_unique(values, v);
        }
        element += "[]";
        keyed = keys.size() == 1 ? keys.front() : std::string();
      } else {
        values.clear();
      }
    }
  }
  for (; next < components.size() && !values.empty(); ++next) {
    const Component& component = components[next];
    std::size_t first_suffix = 0;
    if (returns_receiver(component)) {
      // model.cuda().to(dtype): torch.nn.Module methods that return the module itself.
      std::vector<Value> kept;
      for (const auto& v : values) {
        if (v.kind != Value::Kind::instance || external_bases(v.id).empty()) continue;
        auto own = attribute({v}, component.name);
        if (std::none_of(own.begin(), own.end(), [](const Value& a) { return a.kind == Value::Kind::function; }))
          kept.push_back(v);
      }
      if (!kept.empty()) {
        values = kept;
        first_suffix = 1;
      }
    }
    const std::vector<Value> owners = values;  // what the component's name is read on
    if (first_suffix == 0) values = attribute(values, component.name);
    if (component.suffixes.empty() && reads_one_element(components, next + 1)) {
      // mod.TABLE.get("k")(): the elements the module's (or class's) TABLE holds.
      values = element_or_method(values, attribute(owners, component.name + "[]"), components[next + 1], global_scope);
      ++next;
      continue;
    }
    // mod.TABLE["k"](), Cls.table[0][1]: the elements bound under "TABLE[]" in the module or class
    // (an external value gains "[]" the same way).
    std::string element = first_suffix == 0 ? component.name : "";
    for (std::size_t k = first_suffix; k < component.suffixes.size(); ++k) {
      if (component.suffixes[k] == '(') {
        values = call_values(values, component.arguments[k], global_scope);
        element.clear();
      } else if (!element.empty()) {
        element += "[]";
        values = attribute(owners, element);
      } else {
        std::vector<Value> kept;
        for (auto& v : values)
          if (v.kind == Value::Kind::external) {
            v.text = extended(v.text, "[]");
            kept.push_back(v);
          }
        values = kept;
      }
    }
  }
  return values;
}

bool Resolver::reads_one_element(const std::vector<Component>& components, std::size_t at) {
  if (at >= components.size()) return false;
  const Component& c = components[at];
  return !c.suffixes.empty() && c.suffixes[0] == '(' && (c.name == "get" || c.name == "pop" || c.name == "setdefault");
}

std::vector<Value> Resolver::element_or_method(const std::vector<Value>& container, const std::vector<Value>& held,
                                               const Component& access, int global_scope) {
  std::vector<Value> out = call_values(attribute(container, access.name), access.arguments[0], global_scope);
  for (const auto& v : held) append_unique(out, v);
  for (std::size_t k = 1; k < access.suffixes.size() && !out.empty(); ++k) {
    if (access.suffixes[k] == '(') {
      out = call_values(out, access.arguments[k], global_scope);
    } else {
      std::erase_if(out, [](const Value& v) { return v.kind != Value::Kind::external; });
      for (auto& v : out) v.text = extended(v.text, "[]");
    }
  }
  return out;
}

std::vector<Value> Resolver::attribute(const std::vector<Value>& values, const std::string& name) {
  std::vector<Value> out;
  for (const auto& v : values) {
    std::vector<Value> found;
    switch (v.kind) {
      case Value::Kind::module:
        found = module_attribute(v.text, name);
        break;
      case Value::Kind::class_:
        found = class_attribute(v.id, name, false, v.exact, false);
        if (name == "apply" && is_autograd_function(v.id)) {
          // torch.autograd.Function.apply runs the class's forward (and later its backward)
          for (const char* method : {"forward", "backward"})
            for (const auto& f : class_attribute(v.id, method, false, v.exact, false)) append_unique(found, f);
        }
        break;
      case Value::Kind::instance:
        found = class_attribute(v.id, name, true, v.exact, false);
        if ((name == "load" || name == "jit_load") && scope(v.id).name.ends_with("Builder")) {
          // An op builder's load() returns the extension module it builds: keep the builder's name in
          // the value, so that calls on the module link to its bindings (callgraph/extension_links.h).
          Value module;
          module.kind = Value::Kind::external;
          module.text = stored(scope(v.id).name + "()." + name);
          append_unique(found, module);
        }
        break;
      case Value::Kind::super_:
        found = super_attribute(v.id, name);
        break;
      case Value::Kind::external: {
        Value e = v;
        e.text = extended(e.text, "." + name);
        found.push_back(e);
        break;
      }
      case Value::Kind::function:
        break;
    }
    for (const auto& f : found) append_unique(out, f);
  }
  return out;
}

std::vector<Value> Resolver::super_attribute(int class_scope, const std::string& name) {
  const auto key = memo_key('S', class_scope, name);
  return memoized(key, true, [&] { return Question{key, 'S', class_scope, name}; }, [&] {
    // The receiver is an instance of the class or of any subclass; in each one's MRO, super()
    // continues after the class: in a diamond D(B, C), B's super() reaches C for a D.
    std::vector<int> types = {class_scope};
    for (int sub : subclasses(class_scope))
      if (types.size() < 256) types.push_back(sub);
    std::vector<Value> out;
    for (int type : types) {
      const std::vector<int> order = mro(type);
      auto at = std::find(order.begin(), order.end(), class_scope);
      if (at == order.end()) continue;
      for (auto next = at + 1; next != order.end(); ++next) {
        auto bindings = bindings_named(*next, name);
        for (const NameBinding* b : bindings)
          for (const auto& v : binding_values(*next, *b)) append_unique(out, v);
        if (!bindings.empty()) break;
      }
    }
    if (out.empty()) {
      // Nothing in the repository's classes: an attribute set on the instance or a library base's.
      out = class_attribute(class_scope, name, true, false, true);
    }
    for (auto& f : out) f.receiver = -1;  // super() names its implementations, not a virtual call
    return out;
  });
}

bool Resolver::is_autograd_function(int class_scope) {
  for (const auto& base : external_bases(class_scope))
    if (base == "torch.autograd.Function" || base.ends_with("autograd.function.Function") ||
        base == "torch.autograd.function.Function")
      return true;
  return false;
}

int Resolver::own_member(int class_scope, const std::string& name) const {
  int result = -1;
  for (const NameBinding* b : bindings_named(class_scope, name))
    if (b->kind == NameBinding::Kind::definition) result = global(module_of(class_scope), b->scope);
  return result;
}

std::vector<Value> Resolver::class_attribute(int class_scope, const std::string& name, bool instance,
                                             bool exact, bool skip_first) {
  // One tag per combination of the three flags (0x10-0x17), apart from the letters the others use.
  const int flags = (instance ? 1 : 0) | (exact ? 2 : 0) | (skip_first ? 4 : 0);
  const auto key = memo_key(static_cast<char>(0x10 | flags), class_scope, name);
  return memoized(key, true, [&] { return Question{key, 'A', class_scope, name, {}, flags}; }, [&] {
    auto out = class_attribute_uncached(class_scope, name, instance, exact, skip_first);
    return out;
  });
}

std::vector<Value> Resolver::class_attribute_uncached(int class_scope, const std::string& name, bool instance,
                                                      bool exact, bool skip_first) {
  std::vector<Value> out;
  if (instance && !exact) {
    // self.x in a base class may be what a subclass assigned (self.child = self.func2 in B).
    std::vector<int> queue(subclasses(class_scope).begin(), subclasses(class_scope).end());
    std::unordered_set<int> seen(queue.begin(), queue.end());
    for (std::size_t k = 0; k < queue.size() && k < 256; ++k) {
      for (const auto& attribute : scope(queue[k]).instance_attributes)
        if (attribute.name == name)
          for (const auto& v : binding_values(global(module_of(queue[k]), attribute.scope), attribute))
            append_unique(out, v);
      for (int sub : subclasses(queue[k]))
        if (seen.insert(sub).second) queue.push_back(sub);
    }
  }
  const auto& order = mro(class_scope);
  const std::size_t first = skip_first ? 1 : 0;
  if (instance) {
    // Attributes assigned on self by any class of the hierarchy live on the one instance, and
    // shadow class attributes.
    bool assigned = false;
    for (std::size_t k = first; k < order.size(); ++k)
      for (const auto& attribute : scope(order[k]).instance_attributes) {
        if (attribute.name != name) continue;
        assigned = true;
        for (const auto& v : binding_values(global(module_of(order[k]), attribute.scope), attribute))
          append_unique(out, v);
      }
    if (assigned) return out;
  }
  for (std::size_t i = first; i < order.size(); ++i) {
    int c = order[i];
    bool hit = false;
    auto bindings = bindings_named(c, name);
    for (const NameBinding* b : bindings) {
      hit = true;
      for (auto v : binding_values(c, *b)) {
        if (v.kind == Value::Kind::function && !exact) v.receiver = class_scope;
        append_unique(out, v);
      }
    }
    if (hit) return out;
  }
  auto externals = external_bases(class_scope);
  if (!externals.empty()) {
    Value e;
    e.kind = Value::Kind::external;
    e.text = stored(externals.front() + "." + name);
    out.push_back(e);
  }
  return out;
}

bool Resolver::is_method(int function_scope) const {
  const Scope& f = scope(function_scope);
  return scope(global(module_of(function_scope), f.parent)).kind == Scope::Kind::class_ && !f.is_staticmethod;
}

void Resolver::index_calls() {
  calls_indexed_ = true;
  // applier = MultiTensorApply(...); applier(op, ...): an instance is called by the name it is bound
  // to, so __call__'s call sites are found under the names bound to a construction of its class.
  for (const auto& module : modules_)
    for (const auto& s : module.scopes)
      for (const auto& b : s.bindings)
        if (b.kind == NameBinding::Kind::call_result && !b.target.empty()) {
          std::size_t dot = b.target.rfind('.');
          instance_names_[b.target.substr(dot == std::string::npos ? 0 : dot + 1)].insert(b.name);
        }
  for (int m = 0; m < static_cast<int>(modules_.size()); ++m)
    for (int r = 0; r < static_cast<int>(modules_[m].references.size()); ++r) {
      const RawReference& ref = modules_[m].references[r];
      if ((ref.kind != EdgeKind::call && ref.kind != EdgeKind::decorates) || ref.arguments.empty()) continue;
      std::size_t dot = ref.text.rfind('.');
      std::string last = ref.text.substr(dot == std::string::npos ? 0 : dot + 1);
      if (last.empty() || last.back() == ')' || last.back() == ']') continue;
      calls_by_name_[last].emplace_back(m, r);
      if (dot != std::string::npos) continue;
      // f = func; f(x)  and  def g(callback): callback(x): the callee's own name is not the
      // function's, so index such sites under the alias target or as calls of a parameter ("").
      for (int g = global(m, ref.scope);;) {
        auto bound = bindings_named(g, last);
        for (const NameBinding* b : bound) {
          if (b->kind == NameBinding::Kind::parameter) calls_by_name_[""].emplace_back(m, r);
          if (b->kind == NameBinding::Kind::alias) {
            std::size_t alias_dot = b->target.rfind('.');
            std::string target = b->target.substr(alias_dot == std::string::npos ? 0 : alias_dot + 1);
            // f = lambda x: ...; f(a): "@<index>" is the lambda, indexed under its scope's name.
            if (target.size() > 1 && target[0] == '@' &&
                target.find_first_not_of("0123456789", 1) == std::string::npos) {
              int local = std::atoi(target.c_str() + 1);
              if (local > 0 && local < static_cast<int>(modules_[m].scopes.size())) target = modules_[m].scopes[local].name;
            }
            calls_by_name_[target].emplace_back(m, r);
          }
        }
        if (!bound.empty() || scope(g).kind == Scope::Kind::module) break;
        g = global(m, scope(g).parent);
      }
    }
}

void Resolver::index_parameter_calls() {
  // Calls of parameters (callback(x)) are resolved once and indexed by the functions they may
  // call; scanning them for every parameter costs O(parameters x calls). Flow through a callback
  // into another callback while this index is being built is not followed.
  resolving_parameter_calls_ = true;
  // Built aside: the questions asked meanwhile see the index as it was before, whatever the order.
  std::unordered_map<int, std::vector<std::pair<int, int>>> index;
  if (auto sites = calls_by_name_.find(""); sites != calls_by_name_.end())
    for (auto [m, r] : sites->second) {
      const RawReference& ref = modules_[m].references[r];
      for (const auto& v : resolve(ref.text, global(m, ref.scope)))
        if (v.kind == Value::Kind::function) index[v.id].emplace_back(m, r);
    }
  parameter_calls_by_target_ = std::move(index);
  resolving_parameter_calls_ = false;
  parameter_calls_resolved_ = true;
}

std::vector<std::pair<int, int>> Resolver::call_sites(int function_scope) {
  if (!calls_indexed_) index_calls();
  if (!parameter_calls_resolved_ && !resolving_parameter_calls_) index_parameter_calls();
  const Scope& f = scope(function_scope);
  int parent = global(module_of(function_scope), f.parent);
  // Constructors are called by the class's name (or a subclass's: not followed).
  bool constructor = scope(parent).kind == Scope::Kind::class_ && f.name == "__init__";
  std::vector<std::pair<int, int>> sites;
  if (auto named = calls_by_name_.find(constructor ? scope(parent).name : f.name); named != calls_by_name_.end())
    sites = named->second;
  if (auto called = parameter_calls_by_target_.find(function_scope); called != parameter_calls_by_target_.end())
    sites.insert(sites.end(), called->second.begin(), called->second.end());
  if (f.name == "__call__" && scope(parent).kind == Scope::Kind::class_)
    if (auto bound = instance_names_.find(scope(parent).name); bound != instance_names_.end())
      for (const auto& name : bound->second)
        if (auto named = calls_by_name_.find(name); named != calls_by_name_.end())
          sites.insert(sites.end(), named->second.begin(), named->second.end());
  return sites;
}

int Resolver::argument_offset(int function_scope, const RawReference& site, int caller) {
  const Scope& f = scope(function_scope);
  bool method = is_method(function_scope);
  for (const auto& v : resolve(site.text, caller)) {
    if (v.kind == Value::Kind::function && v.id == function_scope) {
      // obj.method(a) and a bound method passed around: the receiver fills the first parameter;
      // Class.method(obj, a) is the one unbound form.
      if (!method) return 0;
      std::size_t dot = site.text.rfind('.');
      if (!f.is_classmethod && dot != std::string::npos)
        for (const auto& owner : resolve(site.text.substr(0, dot), caller))
          if (owner.kind == Value::Kind::class_) return 0;
      return 1;
    }
    if (v.kind == Value::Kind::instance && f.name == "__call__" && method) {
      // calling an instance runs __call__ with the instance as self
      for (const auto& call : attribute({v}, "__call__"))
        if (call.kind == Value::Kind::function && call.id == function_scope) return 1;
    }
    if (v.kind == Value::Kind::class_ && f.name == "__init__" && method) {
      Value exact = v;
      exact.exact = true;
      for (const auto& init : attribute({exact}, "__init__"))
        if (init.kind == Value::Kind::function && init.id == function_scope) return 1;
    }
  }
  return -1;
}

std::vector<Value> Resolver::parameter_flow(int function_scope, const std::string& name) {
  const Scope& f = scope(function_scope);
  auto at = std::find(f.parameters.begin(), f.parameters.end(), name);
  if (at == f.parameters.end()) return {};
  const auto key = memo_key('P', function_scope, name);
  return memoized(key, true, [&] { return Question{key, 'P', function_scope, name}; }, [&] {
    const auto index = static_cast<std::size_t>(at - f.parameters.begin());
    std::vector<Value> out;
    for (auto [m, r] : call_sites(function_scope)) {
      const RawReference& site = modules_[m].references[r];
      if (std::all_of(site.arguments.begin(), site.arguments.end(),
                      [](const std::string& a) { return a.empty() || is_literal(argument_value(a)); }))
        continue;  // passes no value the resolver follows (call_arguments)
      int caller = global(m, site.scope);
      int offset = argument_offset(function_scope, site, caller);
      if (offset < 0) continue;
      std::string passed = passed_text(site, name, index, offset);
      if (!passed.empty() && !is_literal(passed))
        for (const auto& v : resolve(passed, caller)) append_unique(out, v);
    }
    return out;
  });
}

std::vector<Value> Resolver::element_values(const std::string& iterable, const std::vector<Value>& values,
                                            int global_scope) {
  std::vector<Value> out;
  if (iterable.find_first_of("([") == std::string::npos)  // xs, mod.HOOKS, Cls.table: what they hold
    for (const auto& v : resolve(iterable + "[]", global_scope)) append_unique(out, v);
  for (const auto& v : values) {
    if (v.kind == Value::Kind::instance) {
      // for x in obj: x is what obj.__iter__().__next__() returns.
      auto iterators = call_values(attribute({v}, "__iter__"));
      for (const auto& next : call_values(attribute(iterators, "__next__"))) append_unique(out, next);
    } else if (v.kind == Value::Kind::function || v.kind == Value::Kind::class_) {
      append_unique(out, v);  // what a generator yields, or a class in a tuple of classes
    }
  }
  return out;
}

std::vector<Value> Resolver::entered_values(const std::vector<Value>& managers, const std::string& method) {
  std::vector<Value> out;
  for (const auto& manager : managers) {
    if (manager.kind == Value::Kind::external) {
      Value entered = manager;
      entered.text = extended(entered.text, "." + method + "()");
      append_unique(out, entered);
      continue;
    }
    if (manager.kind != Value::Kind::instance) continue;
    std::vector<Value> functions;
    for (const auto& v : attribute({manager}, method))
      if (v.kind == Value::Kind::function) functions.push_back(v);
    // No repository __enter__: a value a @contextmanager generator yields, or a class whose
    // library base enters as itself (contextlib.AbstractContextManager).
    if (functions.empty()) append_unique(out, manager);
    for (const auto& v : call_values(functions)) append_unique(out, v);
  }
  return out;
}

std::vector<Value> Resolver::held_elements(int global_scope, const std::string& name) {
  std::vector<Value> out;
  int m = module_of(global_scope);
  for (int g = global_scope, first = 1;; first = 0) {
    const Scope& s = scope(g);
    auto bindings = s.kind != Scope::Kind::class_ || first ? bindings_named(g, name) : std::vector<const NameBinding*>{};
    for (const NameBinding* b : bindings) {
      int where = g;
      if (b->scope >= 0 && b->kind != NameBinding::Kind::definition && s.kind == Scope::Kind::module)
        where = global(m, b->scope);
      if (b->kind == NameBinding::Kind::alias && b->member.empty() &&
          b->target.find_first_of("([") == std::string::npos) {
        for (const auto& v : resolve(b->target + "[]", where)) append_unique(out, v);  // other = table
      } else if (b->kind == NameBinding::Kind::call_result) {
        // table = build(): the containers build returns by name hold the elements.
        for (const auto& f : resolve(b->target, where)) {
          if (f.kind != Value::Kind::function) continue;
          for (const auto& returned : scope(f.id).returns)
            if (returned.find_first_of(".([") == std::string::npos)
              for (const auto& v : resolve(returned + "[]", f.id)) append_unique(out, v);
        }
      } else if (b->kind == NameBinding::Kind::from_import) {
        int found = find_module(b->target, m);
        if (found >= 0 && found != m) for (const auto& v : resolve(b->member + "[]", global(found, 0))) append_unique(out, v);
      }
    }
    if ((!bindings.empty() && !only_comprehension_variables(bindings)) || s.kind == Scope::Kind::module) break;
    g = global(m, s.parent);
  }
  return out;
}

std::vector<Value> Resolver::mapped_values(const std::vector<std::string>& arguments, int caller) {
  std::vector<Value> functions;
  for (const auto& argument : arguments)
    if (!argument.empty())
      for (const auto& v : resolve(argument, caller))
        if (v.kind == Value::Kind::function || v.kind == Value::Kind::class_) functions.push_back(v);
  return call_values(functions);
}

std::vector<Value> Resolver::passed_argument(const std::vector<std::string>& arguments, std::size_t position,
                                             int caller) {
  if (caller < 0 || position >= arguments.size() || arguments[position].empty()) return {};
  return resolve(arguments[position], caller);
}

std::vector<Value> Resolver::call_values(const std::vector<Value>& callees, const std::vector<std::string>& arguments,
                                         int caller) {
  std::vector<Value> out;
  for (const auto& c : callees) {
    if (c.kind == Value::Kind::external && (c.text == "typing.cast" || c.text == "typing_extensions.cast")) {
      // cast(T, value) returns value itself.
      for (const auto& v : passed_argument(arguments, 1, caller)) append_unique(out, v);
      continue;
    }
    if (c.kind != Value::Kind::function) continue;
    // A function that returns one of its parameters unchanged (an identity wrapper) returns the
    // argument's value. Only plain functions and static methods: a bound method shifts positions.
    if (is_method(c.id)) continue;
    const Scope& f = scope(c.id);
    for (const auto& returned : f.returns) {
      auto at = std::find(f.parameters.begin(), f.parameters.end(), returned);
      if (at == f.parameters.end()) continue;
      for (const auto& v : passed_argument(arguments, static_cast<std::size_t>(at - f.parameters.begin()), caller))
        append_unique(out, v);
    }
  }
  for (const auto& c : callees) {
    switch (c.kind) {
      case Value::Kind::class_: {
        Value v;
        v.kind = Value::Kind::instance;
        v.id = c.id;
        v.exact = c.exact;
        append_unique(out, v);
        break;
      }
      case Value::Kind::function:
        for (const auto& v : returns_of(c.id)) append_unique(out, v);
        break;
      case Value::Kind::external: {
        Value v = c;
        v.text = extended(v.text, "()");
        append_unique(out, v);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

std::vector<Value> Resolver::returns_of(int function_scope) {
  const auto key = memo_key('R', function_scope, {});
  return memoized(key, true, [&] { return Question{key, 'R', function_scope}; }, [&] {
    std::vector<Value> out;
    const Scope& f = scope(function_scope);
    bool method = is_method(function_scope);
    for (const auto& text : f.returns) {
      // A returned parameter is the argument of each call site (call_values follows it there);
      // the union over all call sites would make every caller receive every other caller's value.
      // `return self` is the receiver, which resolves without call sites.
      bool receiver = method && !f.parameters.empty() && text == f.parameters.front();
      if (!receiver && std::find(f.parameters.begin(), f.parameters.end(), text) != f.parameters.end()) continue;
      for (const auto& v : resolve(text, function_scope)) append_unique(out, v);
    }
    return out;
  });
}

const std::vector<int>& Resolver::mro(int class_scope) {
  if (auto it = mro_.find(class_scope); it != mro_.end()) return it->second;
  const auto key = memo_key('C', class_scope, {});
  static const std::vector<int> kNone;
  if (mro_in_progress_.count(key) || depth_ > kMaxDepth) {
    if (depth_ > kMaxDepth) {
      cut_ = true;
      cuts_.push_back(Question{key, 'C', class_scope});
    }
    static thread_local std::vector<int> self_only;
    self_only = {class_scope};
    return self_only;
  }
  DepthGuard guard(depth_);
  mro_in_progress_.insert(key);
  const bool outer_cut = std::exchange(cut_, false);
  const Scope& s = scope(class_scope);
  int parent = global(module_of(class_scope), s.parent);
  std::vector<int> bases;
  std::vector<std::string> externals;
  for (const auto& base : s.bases) {
    bool repository = false;
    for (const auto& v : resolve(base, parent)) {
      if (v.kind == Value::Kind::class_ && v.id != class_scope) {
        if (std::find(bases.begin(), bases.end(), v.id) == bases.end()) bases.push_back(v.id);
        repository = true;
      } else if (v.kind == Value::Kind::external && !repository) {
        externals.push_back(v.text);
        repository = true;
      }
    }
    if (!repository && base != "object") externals.push_back(base);
  }
  // C3 linearization; a hierarchy C3 rejects falls back to depth-first order.
  std::vector<std::vector<int>> sequences;
  for (int b : bases) sequences.push_back(mro(b));
  sequences.push_back(bases);
  std::vector<int> result = {class_scope};
  bool consistent = true;
  while (true) {
    sequences.erase(std::remove_if(sequences.begin(), sequences.end(), [](const auto& q) { return q.empty(); }),
                    sequences.end());
    if (sequences.empty()) break;
    int chosen = -1;
    for (const auto& q : sequences) {
      int head = q.front();
      bool in_tail = false;
      for (const auto& other : sequences)
        if (std::find(other.begin() + 1, other.end(), head) != other.end()) in_tail = true;
      if (!in_tail) {
        chosen = head;
        break;
      }
    }
    if (chosen < 0) {
      consistent = false;
      break;
    }
    result.push_back(chosen);
    for (auto& q : sequences)
      if (!q.empty() && q.front() == chosen) q.erase(q.begin());
  }
  if (!consistent) {
    result = {class_scope};
    for (int b : bases)
      for (int c : mro(b))
        if (std::find(result.begin(), result.end(), c) == result.end()) result.push_back(c);
  }
  mro_in_progress_.erase(key);
  external_bases_direct_[class_scope] = externals;
  if (cut_) {
    // Leaned on a question the depth limit cut short: kept only for the callers of this question,
    // whose outermost question asks it again once that one is answered from the top.
    cut_mros_.push_back(std::move(result));
    return cut_mros_.back();
  }
  cut_ = outer_cut;
  return mro_[class_scope] = result;
}

std::vector<std::string> Resolver::external_bases(int class_scope) {
  std::vector<std::string> out;
  for (int c : std::vector<int>(mro(class_scope))) {
    auto it = external_bases_direct_.find(c);
    if (it == external_bases_direct_.end()) continue;
    for (const auto& e : it->second)
      if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  return out;
}

void Resolver::build_subclasses() {
  subclasses_built_ = true;
  subclasses_.assign(scope_module_.size(), {});
  for (int g = 0; g < scope_count(); ++g) {
    if (scope(g).kind != Scope::Kind::class_) continue;
    std::vector<int> order = mro(g);
    // Direct bases are the MRO members that no other member's MRO already reaches first;
    // linking every ancestor is simpler and gives the same transitive closure.
    for (std::size_t i = 1; i < order.size(); ++i) subclasses_[order[i]].push_back(g);
  }
}

void Resolver::forget_answers() {
  release_memo();
  wrapped_.clear();
  mro_.clear();
}

void Resolver::release_memo() {
  // The map's nodes and answers are all in the arena: dropping the map walks it once (nothing to
  // free one by one; 0.02 s for Megatron-LM's 460,000 answers), and the arena hands its blocks back together.
  memo_ = decltype(memo_)(&memo_arena_);
  provisional_.clear();
  provisional_lows_.clear();
  tainted_.clear();
  cuts_.clear();
  memo_arena_.release();
}

const std::vector<int>& Resolver::subclasses(int class_scope) {
  if (!subclasses_built_) build_subclasses();
  return subclasses_[class_scope];
}

std::vector<int> Resolver::overriders(int class_scope, const std::string& name) {
  const auto key = memo_key('O', class_scope, name);
  if (auto it = memo_.find(key); it != memo_.end()) {
    std::vector<int> ids;
    for (const auto& v : it->second) ids.push_back(v.id);
    return ids;
  }
  std::vector<Value> found;
  for (int sub : subclasses(class_scope)) {
    int member = own_member(sub, name);
    if (member >= 0 && scope(member).kind == Scope::Kind::function) {
      Value v;
      v.kind = Value::Kind::function;
      v.id = member;
      append_unique(found, v);
    }
  }
  memo_[key].assign(found.begin(), found.end());
  std::vector<int> ids;
  for (const auto& v : found) ids.push_back(v.id);
  return ids;
}

}  // namespace fastci::frontend::python
