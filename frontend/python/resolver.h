#pragma once
/// Repository-wide name resolution over parsed modules: scopes (LEGB), imports and re-exports,
/// class hierarchies (C3 MRO), instance attributes and return values. Flow-insensitive: a name
/// bound twice may be either value.

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory_resource>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontend/python/module_record.h"

namespace fastci::frontend::python {

/// A text the resolver keeps for as long as it lives (Resolver::stored): a value holding one is copied
/// without an allocation, and the memo holds hundreds of thousands of values.
class StoredText {
 public:
  StoredText() = default;
  const std::string& str() const { return text_ ? *text_ : kEmpty; }
  operator const std::string&() const { return str(); }
  bool empty() const { return str().empty(); }
  friend bool operator==(const StoredText& a, const StoredText& b) { return a.text_ == b.text_ || a.str() == b.str(); }
  friend bool operator==(const StoredText& a, std::string_view b) { return a.str() == b; }

 private:
  friend class Resolver;
  explicit StoredText(const std::string* text) : text_(text) {}
  static inline const std::string kEmpty;
  const std::string* text_ = nullptr;
};

/// What an expression may evaluate to.
/// Its members are ordered by size: the memo holds hundreds of thousands (24 bytes each, not 32).
struct Value {
  enum class Kind : std::uint8_t { module, class_, function, instance, external, super_ };
  StoredText text;   ///< module: dotted name; external: dotted name outside the repository
  int id = -1;       ///< global scope id (class, function, instance's class, super's class) or module index
  int receiver = -1; ///< a method found through a non-exact receiver: that receiver's class
  Kind kind = Kind::external;
  bool exact = true; ///< instance/class: the exact type is known (constructed here, not `self`)
  /// A function read by its name where repository decorators rebound that name to a wrapper: a
  /// call runs the wrapper (also among the values), which may run this; linked as a reference.
  bool behind_wrapper = false;
};
static_assert(sizeof(Value) <= 24);

/// One part of a dotted text with what follows it (resolver.cc).
struct Component;

/// Name resolution over a fixed set of modules. Results are memoized; cycles resolve to nothing.
class Resolver {
 public:
  /// `package_aliases`: dotted package -> the package it is a symbolic link to (DeepSpeed's
  /// deepspeed/accelerator -> accelerator); its modules are importable under both names.
  explicit Resolver(const std::vector<ModuleRecord>& modules,
                    const std::map<std::string, std::string>& package_aliases = {});

  /// Builds the repository-wide indexes (call sites by name and of parameters, subclasses) before
  /// any question is asked: built inside a question, they would depend on how deep, and inside
  /// which cycle, the question that first needed them was asked.
  void prepare_indexes();

  /// What keeping answers independent of the order of questions took: questions the depth limit cut
  /// short that were asked again from the top, outermost questions whose cut answers were kept because
  /// a bound on that was reached, and the rounds the index of parameter calls took (prepare_indexes).
  struct OrderIndependenceStats {
    std::size_t asked_from_the_top = 0;
    std::size_t unsettled = 0;
    int index_rounds = 0;
  };
  const OrderIndependenceStats& order_independence_stats() const { return order_independence_stats_; }

  /// Global id of scope `local` of module `module`.
  int global(int module, int local) const { return offsets_[module] + local; }
  int module_of(int global_scope) const { return scope_module_[global_scope]; }
  int scope_count() const { return static_cast<int>(scope_module_.size()); }
  const Scope& scope(int global_scope) const;
  const ModuleRecord& module(int index) const { return modules_[index]; }
  /// "py:<qualified name>" of a scope, made once (linking asks for it about once per edge end).
  const std::string& symbol_id(int global_scope) const {
    if (symbol_ids_.empty()) symbol_ids_.resize(scope_module_.size());
    std::string& id = symbol_ids_[global_scope];
    if (id.empty()) id = "py:" + scope(global_scope).qualified_name;
    return id;
  }

  /// Module index of a dotted name as imported from `from_module` (suffix match for sys.path
  /// roots below the repository root); -1 when it is not a file of the repository.
  int find_module(std::string_view name, int from_module) const;
  /// Whether a dotted name is a module or a package (namespace packages included).
  bool is_repository_module(const std::string& name) const;

  /// Values of a raw dotted text (foo, self.a.b, super().f, m.F().g) read inside a scope.
  std::vector<Value> resolve(const std::string& text, int global_scope);
  /// The same, read at `line` of that scope: where a statement of the scope's own body bound the
  /// text's first name before that line (NameBinding::statement_first) to values the resolver
  /// knows (repository code, nothing external), what earlier statements bound is replaced; what
  /// such statements after the line bind is not read there.
  std::vector<Value> resolve_at(const std::string& text, int global_scope, int line);
  /// Values of an attribute on each of the values.
  std::vector<Value> attribute(const std::vector<Value>& values, const std::string& name);
  /// Values a name has in a module's namespace (re-exports and star imports followed).
  std::vector<Value> module_attribute(const std::string& module, const std::string& name);

  /// C3 method resolution order of a class over its repository bases (itself first).
  const std::vector<int>& mro(int class_scope);
  /// Bases outside the repository anywhere in the hierarchy (e.g. "unittest.TestCase").
  std::vector<std::string> external_bases(int class_scope);
  /// Direct subclasses of a class in the repository.
  const std::vector<int>& subclasses(int class_scope);
  /// Methods named `name` defined in subclasses (transitively) of a class.
  std::vector<int> overriders(int class_scope, const std::string& name);
  /// A function or class defined directly in a class body under that name, or -1.
  int own_member(int class_scope, const std::string& name) const;
  /// Whether `from <module> import *` binds `name`: listed in the module's literal `__all__`,
  /// else public (no leading underscore).
  bool star_exports(int module, const std::string& name) const;
  /// A number per distinct text (memo keys, the linker's edge keys): integers to hash, not strings.
  std::uint32_t intern(std::string_view text);
  /// The text kept once for as long as the resolver lives (Value::text).
  StoredText stored(std::string_view text) const;
  /// A library value's text with `suffix` appended (`torch.cat` -> `torch.cat()`), or the text
  /// itself where that would repeat the same ending a third time.
  StoredText extended(const StoredText& text, std::string_view suffix) const;
  /// Every interned text by its number (intern): valid while the resolver lives and interns nothing new.
  std::vector<const std::string*> texts_by_number() const;
  /// Frees the interned texts, for a resolver that will be asked nothing more (answers point into them).
  void release_texts();
  /// Frees the memo (every answer given so far) at once; the resolver answers on, asking again.
  void release_memo();
  /// Bindings of a name in a scope, through the per-scope sorted index.
  std::vector<const NameBinding*> bindings_named(int global_scope, std::string_view name) const;

 private:
  /// A question the depth limit cut short, as needed to ask it again (ask): what was asked (the
  /// memo key's tag; 'A' class_attribute with its flags in `line`, 'C' mro), about what, and its key.
  struct Question {
    std::uint64_t key = 0;
    char kind = 0;
    int subject = -1;
    std::string text = {};
    std::string module = {};  ///< module_attribute's module
    int line = 0;             ///< resolve_at's line; class_attribute's flags
  };
  /// Asks a question again (its answer goes to the memo).
  void ask(const Question& question);
  /// For an outermost question whose answer leaned on cut ones: drops the answers that leaned on
  /// them and asks each cut question from the top (depth 0), so that every answer is one function of
  /// its question, whichever question came first. False where a bound says to keep the cut answers.
  bool settle_cuts(int rounds_done);
  /// Forgets every answer that depends on the indexes (the memo, decorator checks, MROs), for
  /// prepare_indexes to ask again with an index it rebuilt.
  void forget_answers();

  std::vector<Value> lookup(int global_scope, const std::string& name);
  /// Where a read sits between the certain bindings of its first name (resolve_at): the first line
  /// of the last such statement before it, and of the first one after it (0: none).
  struct FlowCut {
    int first = 0;
    int next = 0;
  };
  /// What `name` holds in `global_scope` between those statements: what the one at `first` bound
  /// and what later ones bound, but not what statements from `next` on bind (no loop of the body
  /// brings them back to the read) nor, where the values at `first` are all known, what earlier
  /// ones bound. Bindings made elsewhere (`global`) always count; where nothing is left, lookup.
  std::vector<Value> lookup_between(int global_scope, const std::string& name, FlowCut cut);
  /// The cut of `name`'s certain bindings in a scope around a read at `line`.
  FlowCut flow_cut(int global_scope, std::string_view name, int line) const;
  /// The scope whose binding of `name` a read in `global_scope` finds (LEGB, as lookup), or -1.
  int binding_scope(int global_scope, const std::string& name) const;
  /// Whether some binding of the scope is named with that prefix ("d[=s:k]" and "d[=s:k][...]").
  bool binds_prefix(int global_scope, std::string_view prefix) const;
  /// A constant-keyed element read `name` ("d[=s:k]") in the scope `home` binding the container:
  /// what is stored under that key (cut at `line` where the read is in `home` itself, 0: not), and
  /// what the `unkeyed` container names ("d[]") hold without a key.
  std::vector<Value> keyed_element(int home, const std::string& name, const std::vector<std::string>& unkeyed, int line);
  /// The keyed names a subscript `[=argument]` of the container `keyed` (bound in `home`, first
  /// named `root`) reads: "keyed[=s:k]" where the repository stored under that key, "keyed[=p:1]"
  /// for position 1 of a literal whose positions stay put, and for "v:name" those of each constant
  /// the name certainly holds. Empty: every element is read.
  std::vector<std::string> element_keys(int home, const std::string& root, const std::string& keyed,
                                        const std::string& argument, int global_scope);
  /// The constants ("i:1", "s:k") a plain name read in a scope certainly holds: every binding
  /// that can reach the read binds a literal (through aliases, imports and the literal arguments
  /// of every call site of a parameter). None where any binding may hold something else, where
  /// the name is rebound outside its bindings (ModuleRecord::rebound_names), or past 8 constants.
  std::optional<std::vector<std::string>> constant_keys(const std::string& text, int global_scope, int depth = 0);
  /// A parameter's constants: its literal default and what each call site passes (constant_keys).
  std::optional<std::vector<std::string>> parameter_constants(int function_scope, const NameBinding& parameter,
                                                              int depth);
  /// The text a call site passes for parameter `index` (`name`) of a function, "" where none is seen.
  static std::string passed_text(const RawReference& site, const std::string& name, std::size_t index, int offset);
  /// Whether a container named so may have its elements moved or be passed where they may be:
  /// rebound anywhere (ModuleRecord::rebound_names), passed as an argument, aliased, stored or returned.
  bool positions_may_move(const std::string& name);
  /// Whether the repository decorators of a function rebind its name to wrapper functions only
  /// (not to the function itself, nor to anything else: a class, a library's value).
  bool wrapped_by_decorators(int function_scope);
  /// Whether `name` is listed in some module's rebound_names.
  bool rebound_anywhere(const std::string& name);
  std::vector<Value> binding_values(int global_scope, const NameBinding& binding);
  std::vector<Value> resolve_uncached(const std::string& text, int global_scope);
  std::vector<Value> class_attribute(int class_scope, const std::string& name, bool instance,
                                     bool exact, bool skip_first);
  std::vector<Value> class_attribute_uncached(int class_scope, const std::string& name, bool instance,
                                              bool exact, bool skip_first);
  /// What calling each callee returns; `arguments` (dotted texts read in `caller`) are followed
  /// through functions that return a parameter unchanged and through typing.cast.
  std::vector<Value> call_values(const std::vector<Value>& callees, const std::vector<std::string>& arguments = {},
                                 int caller = -1);
  /// Values a parameter receives from the repository's call sites of its function (by position
  /// or keyword), found through an index of call sites by callee name.
  std::vector<Value> parameter_flow(int function_scope, const std::string& name);
  /// Whether a function is called with a receiver (a method that is not a staticmethod).
  bool is_method(int function_scope) const;
  /// Builds calls_by_name_: calls with arguments by callee name, alias target, or "" for parameters.
  void index_calls();
  /// Builds parameter_calls_by_target_ from the "" bucket.
  void index_parameter_calls();
  /// Call sites (module, reference) that may call a function.
  std::vector<std::pair<int, int>> call_sites(int function_scope);
  /// How many leading parameters a call site fills without arguments (1 for a bound receiver), or
  /// -1 when the site does not call the function.
  int argument_offset(int function_scope, const RawReference& site, int caller);
  /// Whether components[at] is `get(`, `pop(` or `setdefault(`: one element of the container before it.
  static bool reads_one_element(const std::vector<Component>& components, std::size_t at);
  /// `d.get(k)` and friends: what a repository method of that name returns on `container`, and the
  /// elements `held`; then the access's further suffixes applied.
  std::vector<Value> element_or_method(const std::vector<Value>& container, const std::vector<Value>& held,
                                       const Component& access, int global_scope);
  /// What `for x in iterable` binds x to, given the iterable's values.
  std::vector<Value> element_values(const std::string& iterable, const std::vector<Value>& values, int global_scope);
  /// What `with manager as y` binds y to: what the manager's `method` (__enter__ or __aenter__)
  /// returns where the repository defines it, else the manager's value itself (what a
  /// @contextmanager generator yields; a library base's __enter__ that returns self).
  std::vector<Value> entered_values(const std::vector<Value>& managers, const std::string& method);
  /// Elements of the container a name holds that no "name[]" binding says (the name is another
  /// name's container, a function's returned container, or one imported from another module):
  /// `table = build(); table["k"]()` reaches what build's `d = {"k": f}; return d` holds.
  std::vector<Value> held_elements(int global_scope, const std::string& name);
  /// What iterating `map(f, xs)` gives: what the functions (and classes) among its arguments
  /// return; the iterables beside them are no callables.
  std::vector<Value> mapped_values(const std::vector<std::string>& arguments, int caller);
  /// Values of the argument at `position`, when the caller's text of it is known.
  std::vector<Value> passed_argument(const std::vector<std::string>& arguments, std::size_t position, int caller);
  std::vector<Value> returns_of(int function_scope);
  Value module_value(const std::string& name) const;
  /// What `super().name` finds in a method of `class_scope` (or `super(class_scope, obj).name`):
  /// for the class and each subclass the receiver may be, the first class after `class_scope` in
  /// that type's MRO that binds the name.
  std::vector<Value> super_attribute(int class_scope, const std::string& name);
  /// Whether a class derives from torch.autograd.Function (its apply() runs forward).
  bool is_autograd_function(int class_scope);
  /// What a parameter named like a pytest fixture receives: that fixture's return values.
  std::vector<Value> fixture_values(int function_scope, const std::string& name);
  void build_subclasses();

  const std::vector<ModuleRecord>& modules_;
  std::vector<int> offsets_;
  std::vector<int> scope_module_;
  mutable std::vector<std::string> symbol_ids_;  ///< by global scope; "" until symbol_id asks
  std::unordered_map<std::string, int> module_index_;
  std::unordered_set<std::string> packages_;
  std::unordered_map<std::string, std::vector<int>> by_suffix_;
  std::vector<std::vector<std::pair<std::string_view, int>>> binding_index_;
  /// Calls with arguments, by the last name of the callee text: (module, reference index).
  std::unordered_map<std::string, std::vector<std::pair<int, int>>> calls_by_name_;
  /// Class name -> names bound to a call of it anywhere (callable instances' call sites).
  std::unordered_map<std::string, std::set<std::string>> instance_names_;
  bool calls_indexed_ = false;
  /// Calls of parameters, by the function scopes they may call (built once, on first need).
  std::unordered_map<int, std::vector<std::pair<int, int>>> parameter_calls_by_target_;
  bool parameter_calls_resolved_ = false;
  bool resolving_parameter_calls_ = false;

  /// A memo key: what was asked (tag), about which scope or module (subject), and a name or text.
  std::uint64_t memo_key(char tag, std::uint32_t subject, std::string_view text);
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  /// Interned texts (intern, stored); module_value, a const query, stores a module name.
  mutable std::unordered_map<std::string, std::uint32_t, TextHash, std::equal_to<>> texts_;
  /// The memo, and the one way into it: an answer from the memo, or computed by `compute`. A
  /// question met again while it is being answered (a cycle) gets what it has so far; an answer that
  /// leaned on such a question still open above it is provisional (dropped when that one is
  /// answered, so that it is asked again), and the question at the head of a cycle is asked again,
  /// seeded with its last answer, while that answer grows (docs/static-selection.md, cycles).
  /// `describe` gives the Question, for a question the depth limit cuts short.
  template <class Describe, class Compute>
  std::vector<Value> memoized(std::uint64_t key, bool counts_depth, Describe&& describe, Compute&& compute);
  /// The memo's answers live in one arena: hundreds of thousands of small allocations that are
  /// freed together (release_memo) at the cost of a walk, leaving no fragmented heap behind.
  std::pmr::monotonic_buffer_resource memo_arena_;
  std::pmr::unordered_map<std::uint64_t, std::pmr::vector<Value>> memo_{&memo_arena_};
  /// Questions being answered: their position on the stack of open questions and their answer so far.
  std::unordered_map<std::uint64_t, std::pair<int, std::vector<Value>>> open_;
  std::vector<std::uint64_t> provisional_;  ///< provisional memo entries, oldest first
  std::unordered_map<std::uint64_t, int> provisional_lows_;  ///< the open question each leaned on
  bool cut_ = false;  ///< the answer being made leaned on one the depth limit cut short
  std::vector<Question> cuts_;  ///< questions the depth limit cut short, to ask from the top
  std::unordered_set<std::uint64_t> tainted_;  ///< memo entries that leaned on them
  int settle_nesting_ = 0;  ///< settle_cuts within settle_cuts
  int settle_asks_ = 0;     ///< questions asked from the top for the current outermost question
  OrderIndependenceStats order_independence_stats_;
  int low_ = std::numeric_limits<int>::max();  ///< outermost open question (lowest position) the answer being made leaned on
  std::unordered_set<std::uint64_t> mro_in_progress_;
  std::unordered_map<int, std::vector<int>> mro_;
  std::deque<std::vector<int>> cut_mros_;  ///< orders that leaned on a cut question (not in mro_)
  std::unordered_map<int, std::vector<std::string>> external_bases_direct_;
  FlowCut flow_cut_;  ///< resolve_at's cut, for the first name of the text resolve_uncached reads next
  int flow_line_ = 0;  ///< resolve_at's line, for the keyed elements of that text
  std::vector<std::vector<int>> subclasses_;
  bool subclasses_built_ = false;
  int depth_ = 0;
  std::optional<std::vector<int>> conftests_;  ///< conftest modules, deepest first (computed once)
  std::unordered_map<int, bool> wrapped_;  ///< wrapped_by_decorators' answers
  std::optional<std::unordered_set<std::string>> rebound_;  ///< rebound_anywhere's names (on first need)
  std::optional<std::unordered_set<std::string>> escaped_;  ///< positions_may_move's names (on first need)
};

}  // namespace fastci::frontend::python
