#pragma once
/// What the Python frontend learns from one file: the facts plus the raw, unresolved material
/// (scopes, name bindings, references) that link_modules resolves across the repository.
///
/// Naming scheme: symbol ids are "py:<dotted qualified name>". The module name comes from the
/// path (a/b/c.py -> a.b.c, a/b/__init__.py -> a.b). Classes and functions nest by plain dots,
/// whatever encloses them: a method is mod.Class.method, a function nested in a function is
/// mod.outer.inner (no "<locals>"). A name defined twice in one scope (property setters,
/// if/else definitions) gets "#2", "#3", ... on the later ones. A module- or class-level name
/// bound by an assignment or import is a variable "py:<scope>.<name>=" ("=#2" on repeats), apart
/// from definitions of the same name. A lambda is a function scope named as PyCG names it,
/// "<lambda1>", "<lambda2>", ... per enclosing scope in source order (mod.f.<lambda1>); Python's
/// own frames say "f.<locals>.<lambda>" for each of them (co_firstlineno tells them apart).
/// Comprehensions are not scopes: what they call is attributed to the enclosing function.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/facts.h"
#include "frontend/python/extension_modules.h"
#include "util/result.h"

namespace fastci::frontend::python {

/// What a name in a scope is bound to, before linking.
struct NameBinding {
  enum class Kind {
    definition,     ///< def/class in this scope: `scope` is the defined scope
    module_import,  ///< `import a.b` binds a -> "a"; `import a.b as c` binds c -> "a.b"
    from_import,    ///< `from m import x [as y]`: target is the absolute module m, member is x
    alias,          ///< `X = Y.Z`: target is the raw dotted text of the value
    call_result,    ///< `x = F(a, b)`: target is the callee's dotted text, member "a,b" (see resolver)
    parameter,      ///< a function parameter; target: the class its annotation names; member: its default
    other,          ///< assigned something the linker cannot follow (it still shadows); target: "#i:1" or
                    ///< "#s:name" where that is an integer or string literal (Resolver::constant_keys)
    star_import,    ///< `from m import *`: target is m; name is empty
  };
  std::string name;
  Kind kind = Kind::other;
  std::string target;
  std::string member;
  int scope = -1;  ///< definition: index of the defined scope in ModuleRecord::scopes
  int line = 0;
  /// A binding made by a statement of its scope's own body (not inside an `if`, loop, `try`,
  /// `with` or expression): the first and last line of that statement, so a later read in the
  /// same scope knows that it ran and replaced what was bound before it. 0 where not certain.
  int statement_first = 0;
  int statement_last = 0;
  /// A container element stored under a constant key (`{"k": f}`, `d["k"] = f`, `dict(k=f)`):
  /// besides "d[]" it is bound under its keyed name "d[=s:k]" (strings "s:", integers "i:"),
  /// which reads with that constant key use instead (Resolver::keyed_element). A list or tuple
  /// literal's elements are bound by position the same way ("xs[=p:0]").
  bool has_key = false;
  /// A comprehension's variable (`[f(x) for x in xs]`), bound in the enclosing scope (comprehensions
  /// are no scopes here) though Python 3 binds it in the comprehension only: it does not shadow
  /// what the enclosing scopes bind under that name (the resolver reads both).
  bool comprehension = false;
};

/// Whether a scope's bindings of a name are all comprehension variables (NameBinding::comprehension):
/// what the scopes around it bind under that name is read too.
bool only_comprehension_variables(const std::vector<const NameBinding*>& bindings);

/// One parameter set of a parametrize mark: pytest ids of its values as pytest would print them.
struct ParameterSet {
  std::vector<std::string> values;                 ///< source text of each value
  std::vector<std::optional<std::string>> value_ids; ///< pytest's id of each value; none: argname+index
  std::optional<std::string> id;                   ///< pytest.param(..., id="...")
};

/// A `pytest.mark.parametrize(...)` as written, with ids computed where pytest's rules allow.
struct Parametrize {
  std::vector<std::string> argnames;
  std::vector<ParameterSet> sets;
  std::vector<std::optional<std::string>> ids;  ///< ids=[...] entries; none where not given
  bool indirect = false;                        ///< indirect=True: argnames are fixtures
  bool is_static = true;  ///< false when values or ids cannot be known without running code
  int line = 0;
};

/// A pytest mark applied to a function, a class or a module (decorator or pytestmark).
struct Mark {
  std::string name;                       ///< "parametrize", "skipif", "world_size", ...
  std::vector<std::string> string_args;   ///< string literal positional args (usefixtures)
  std::vector<int> int_args;              ///< integer literal positional args (world_size(N))
  std::optional<Parametrize> parametrize; ///< set for name == "parametrize"
  int line = 0;
};

/// A module, class or function body: the unit of name lookup.
struct Scope {
  enum class Kind { module, class_, function };
  Kind kind = Kind::module;
  std::string qualified_name;  ///< dotted, without the "py:" prefix
  std::string name;            ///< last component as written
  int parent = -1;             ///< enclosing scope index; -1 for the module
  int line = 0;
  std::vector<NameBinding> bindings;
  std::vector<std::string> parameters;          ///< in order, without * and **
  std::vector<std::string> required_parameters; ///< parameters without default (fixture requests)
  std::vector<std::string> bases;               ///< class: raw base expressions
  std::vector<std::string> returns;             ///< function: raw dotted texts of returned values
  std::vector<NameBinding> instance_attributes; ///< class: self.x = ... in its methods
  bool is_staticmethod = false;
  bool is_classmethod = false;
  bool defines_init = false;     ///< class: defines __init__ or __new__ itself
  bool not_a_test = false;       ///< class: __test__ = False
  bool build_hooks = false;      ///< class: decorated or given class keywords (metaclass=): library code builds it
  std::vector<Mark> marks;       ///< pytest marks, in pytest's own order (closest decorator first)
  bool is_fixture = false;
  std::string fixture_name;      ///< name= or the function name
  bool fixture_autouse = false;
  std::vector<int> world_sizes;  ///< class attribute world_size = N or [N, M]
};

/// A raw, unresolved reference from inside a scope.
struct RawReference {
  int scope = 0;          ///< index of the scope that makes the reference
  std::string text;       ///< dotted callee text: foo, self.foo, super().foo, a.b().c, x[].y
  EdgeKind kind = EdgeKind::call;
  int line = 0;
  bool keep_unresolved = true;  ///< false for values passed as arguments: only a hit is an edge
  int decorated = -1;     ///< decorator references: the scope it decorates
  /// Calls: the arguments as dotted texts, positional first ("" where not dotted), then keyword
  /// ones as "name=text"; what the callee's parameters receive.
  std::vector<std::string> arguments;
  /// Reads in a module- or class-level statement that binds names: the variable (index into
  /// ModuleRecord::variables) whose value the read feeds; -1 elsewhere.
  int owner = -1;
};

/// The text of the read a docstring reader makes (`X.__doc__`, inspect.getsource(X), ...); the
/// linker turns it into a read edge to the placeholder kDocstringsPlaceholder.
inline constexpr const char* kDocstringReader = "<docstrings>";

/// A name bound at module or class level by an assignment, an import or a field declaration.
/// Its symbol (kind variable) is facts.symbols[scopes.size() + index]: a change to its statement
/// reaches the code that reads the name, not every importer of the module.
struct Variable {
  int scope = 0;        ///< the module or class scope that binds it
  std::string name;
  bool is_import = false;
  std::string imported_module;  ///< from-imports: the absolute module the name comes from
  std::string imported_member;  ///< from-imports: the name in that module
};

/// Everything parse_module learned from one file; the unit of the index cache.
struct ModuleRecord {
  FileFacts facts;          ///< symbols[i] describes scopes[i]
  std::string module_name;  ///< dotted
  bool is_package = false;  ///< an __init__.py
  std::vector<Scope> scopes;  ///< scopes[0] is the module
  std::vector<RawReference> references;
  std::vector<ExtensionModule> extensions;  ///< native extensions the file declares (setup.py, op builders)
  std::vector<Variable> variables;          ///< module- and class-level names, after the scopes' symbols
  /// The names `from <this module> import *` binds, from a literal `__all__` (assigned, `+=`,
  /// `.extend`/`.append`ed; several assignments are unioned). None when the module defines no
  /// `__all__` or builds it in a way not read here: then every public name, which can only add.
  std::optional<std::vector<std::string>> star_exports;
  /// Last names whose value or element positions change other than through the bindings above:
  /// augmented-assignment targets, attributes stored on other objects (`mod.KEY = v`, setattr),
  /// and containers reordered in place (insert, pop, remove, sort, reverse, `del x[i]`, slice
  /// stores). A constant or a literal's positions are trusted only for names not listed anywhere.
  std::vector<std::string> rebound_names;
};

/// Cache form of a record (MessagePack).
std::string serialize(const ModuleRecord& record);
/// Reads what serialize wrote; fails with a message on anything else.
util::Result<ModuleRecord> deserialize(std::string_view bytes);

/// See LinkedTree::constant_reads. Unknown (a tree cached before it was recorded): everything.
struct ConstantReads {
  bool known = false;
  std::vector<std::string> names;  ///< sorted
  bool call_arguments = true;
};

/// The linked facts of a whole tree's Python files and the native extensions they declare: what a
/// tree analysed before needs instead of its records and a link (callgraph::index_repository).
struct LinkedTree {
  RepositoryFacts facts;
  std::vector<ExtensionModule> extensions;
  /// What linking may read literals' values for (Resolver::constant_keys, through a subscript by a
  /// name, `TABLE[k]()`): the names whose bindings it may read, and whether it may read call sites'
  /// literal arguments (a parameter among them). Only those literals' values can change the links.
  ConstantReads constant_reads;
};

/// Every name a subscript by a name may lead constant_keys to, over a whole tree's records.
ConstantReads constant_reads(const std::vector<ModuleRecord>& records);

/// Whether a text is an int or str literal as parse_module writes one ("#i:1", "#s:name"): in
/// `other` bindings' targets, parameters' defaults and call arguments.
inline bool is_literal(std::string_view text) { return text.size() > 1 && text[0] == '#'; }
/// A call argument's value: "x" of the keyword argument "name=x", a positional one itself.
inline std::string_view argument_value(std::string_view argument) {
  auto equals = argument.find('=');
  return equals == std::string_view::npos ? argument : argument.substr(equals + 1);
}

/// Cache form of a linked tree.
std::string serialize(const LinkedTree& tree);
/// serialize(LinkedTree) of the parts, where they are not in a LinkedTree (copying the facts of a
/// whole repository into one costs a tenth of a cold analysis's memory).
std::string serialize_linked(const RepositoryFacts& facts, const std::vector<ExtensionModule>& extensions,
                             const ConstantReads& constant_reads);
/// Reads what serialize(LinkedTree) wrote; fails with a message on anything else.
util::Result<LinkedTree> deserialize_linked(std::string_view bytes);

/// Dotted module name of a repository-relative path (a/b/__init__.py -> a.b).
std::string module_name_for_path(std::string_view path);

/// The name of a container's element under a constant key: "d" and "s:k" -> "d[=s:k]" (see
/// NameBinding::has_key); the resolver reads the key back as the subscript's argument.
std::string keyed_element_name(std::string_view container, std::string_view key);
/// A text with its constant keys dropped: "d[=s:k][=i:0]" -> "d[][]", the plain form.
std::string without_keys(std::string_view text);

}  // namespace fastci::frontend::python
