#pragma once
/// The language-neutral fact model: what every frontend produces and the call graph consumes.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fastci::frontend {

/// Source language of a symbol.
enum class Language { python, cpp, cuda };

/// What a symbol is. `placeholder` stands for a call target that could not be resolved;
/// `variable` is a name bound at module or class level (assignment, import, field), whose
/// dependents are its readers rather than every importer of the module; `declaration` is a C/C++
/// declaration outside function bodies (type, alias, constant, prototype, template, macro), whose
/// dependents are the code using it rather than every unit including its file.
enum class SymbolKind { module, class_, function, method, kernel, binding, test, placeholder, variable, declaration };

/// Why one symbol refers to another.
enum class EdgeKind {
  call,                   ///< a direct call (or a constructor call resolved to __init__)
  virtual_call,           ///< a call through a virtual method or a Python method on an unknown receiver
  kernel_launch,          ///< host code launching a __global__ kernel
  binding,                ///< a Python-visible name bound to a C++ function
  import,                 ///< module-level dependency (module imports module)
  override_,              ///< a method overriding a base-class method (base -> derived)
  fixture,                ///< a test or fixture using a pytest fixture
  dispatch_registration,  ///< TORCH_LIBRARY_IMPL registration of an op implementation
  contains,               ///< a module or class containing a definition (module code runs on import)
  decorates,              ///< a decorator applied to a definition (decorator runs at definition time)
  reference,              ///< a function passed as a value (callback), kept so reachability is not lost
  read,                   ///< code reading a module- or class-level name (a variable symbol)
  name_match,             ///< an unresolved `.name` read may read every class attribute of that name
  uses,                   ///< C/C++ code using a declaration: a type, constant, prototype or macro it expands
};

/// The placeholder that code reading docstrings or source text at run time (`X.__doc__`,
/// inspect.getsource) reads: where it has readers, a docstring edit is a change of data.
inline constexpr const char* kDocstringsPlaceholder = "?<docstrings>";

/// Clang error diagnostics the C++ frontend keeps per unit; a unit with more lists only these.
inline constexpr int kKeptNativeErrors = 50;
/// How the C++ frontend's diagnostic for an include it could not find starts ("missing include \"x.h\" ...").
inline constexpr const char* kMissingIncludeDiagnostic = "missing include ";

/// One definition in the source.
struct Symbol {
  std::string id;              ///< stable key: "<lang>:<qualified name>", e.g. "py:pkg.mod.Class.method"
  Language language = Language::python;
  SymbolKind kind = SymbolKind::function;
  std::string qualified_name;  ///< dotted (Python) or C++ qualified name with signature
  std::string file;            ///< repository-relative path, '/' separated
  int first_line = 0;          ///< 1-based, inclusive
  int last_line = 0;           ///< 1-based, inclusive
  std::uint64_t body_hash = 0; ///< hash of the body's tokens: comments and whitespace do not change it
  /// Python: hash of its docstrings, which are data only where code reads them. A C/C++ file's own
  /// symbol: hash of its file-level tokens but the `#include` lines, which tells an include-only change.
  std::uint64_t doc_hash = 0;
  /// Python classes: hash of the names of their annotated fields in order, which shape a generated
  /// __init__ (dataclasses, pydantic, attrs); body_hash covers the rest of the class's own tokens.
  std::uint64_t fields_hash = 0;
};

/// A reference from one symbol to another at a call site.
struct Edge {
  std::string from;  ///< Symbol::id of the caller/user
  std::string to;    ///< Symbol::id of the target; "?<name>" for an unresolved placeholder
  EdgeKind kind = EdgeKind::call;
  std::string file;  ///< call-site file; empty: the file of the FileFacts holding the edge
  int line = 0;      ///< call-site line
};

/// A CUDA kernel launch site (host function -> kernel) with its configuration as written.
struct LaunchSite {
  std::string host_function;  ///< Symbol::id
  std::string kernel;         ///< Symbol::id of the __global__ function (specialization if templated)
  std::string grid, block, shared_memory, stream;
  std::vector<std::string> template_arguments;
  std::string file;
  int line = 0;
};

/// A Python-visible name bound to a C++ symbol.
struct Binding {
  std::string extension_module;  ///< e.g. "cpu_adam_op" or "torch.ops.deepspeed"
  std::string python_name;       ///< attribute or op name as Python sees it
  std::string target;            ///< Symbol::id of the C++ function
  std::string dispatch_key;      ///< TORCH_LIBRARY_IMPL key, empty otherwise
  std::string file;
  int line = 0;
};

/// Where a workload knob's value came from.
enum class KnobOrigin { parametrize, keyword_argument, cli_argument, config_file, attribute, declared };

/// A workload dimension of a test and its value (layers, hidden size, TP, world size, ...).
struct WorkloadKnob {
  std::string name;   ///< canonical name from the knob catalogue, or the raw name when unknown
  std::string value;  ///< as written
  KnobOrigin origin = KnobOrigin::keyword_argument;
  std::string file;
  int line = 0;
};

/// One test as its runner names it.
struct Test {
  std::string id;                     ///< pytest node id with parametrization, or gtest Suite.Name
  std::string symbol;                 ///< Symbol::id of the test function
  std::string file;
  int line = 0;
  std::vector<std::string> fixtures;  ///< Symbol::ids of fixtures it uses (transitively resolved)
  std::vector<std::string> marks;
  int gpus = 0;                       ///< declared GPU count (world_size, marks); 0 when undeclared
  std::vector<WorkloadKnob> knobs;
};

/// A problem met while reading a file; parsing continues where it is safe.
struct Diagnostic {
  enum class Severity { warning, error } severity = Severity::error;
  std::string file;
  int line = 0;
  std::string message;
};

/// Everything one frontend learned from one source file (the unit of the index cache).
struct FileFacts {
  std::string path;          ///< repository-relative
  std::string content_hash;  ///< util::content_hash of the bytes read
  Language language = Language::python;
  bool parsed = true;        ///< false when the file could not be understood (syntax errors, binary)
  std::vector<Symbol> symbols;
  std::vector<Edge> edges;
  std::vector<LaunchSite> launches;
  std::vector<Binding> bindings;
  std::vector<Test> tests;
  std::vector<std::string> imported_modules;  ///< dotted names (Python) or included paths (C++)
  std::vector<Diagnostic> diagnostics;
};

/// The facts of a whole repository at one commit.
struct RepositoryFacts {
  std::vector<FileFacts> files;
  std::vector<Diagnostic> diagnostics;  ///< repository-level problems (unreadable files, escapes)
};

/// Lowercase names used in JSON, reports and the cache.
/// Whether a path is C, C++ or CUDA code: a translation unit or a header.
bool is_native_source(std::string_view path);
/// Whether a path is compiled on its own (.c/.cc/.cpp/.cxx/.cu), not only included.
bool is_native_translation_unit(std::string_view path);

const char* to_string(Language language);
const char* to_string(SymbolKind kind);
const char* to_string(EdgeKind kind);
const char* to_string(KnobOrigin origin);

}  // namespace fastci::frontend
