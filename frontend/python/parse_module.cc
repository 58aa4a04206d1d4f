#include "frontend/python/parse_module.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "frontend/python/extension_modules.h"
#include "frontend/python/pytest_ids.h"
#include "frontend/python/syntax_tree.h"
#include "util/hash.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace fastci::frontend::python {
namespace {

/// Deeper syntax than this (generated code, long operator chains) is not walked for facts.
constexpr int kMaxDepth = 400;
/// Longest raw text kept for an unresolvable callee expression.
constexpr std::size_t kMaxCalleeText = 80;
/// Arguments of a call kept for parameter flow.
constexpr std::size_t kMaxFlowArguments = 8;
/// Leading positional arguments kept in a call's dotted text (typing.cast needs two).
constexpr std::size_t kMaxPassedArguments = 2;

/// Offset of the first byte that is not valid UTF-8, or npos.
std::size_t first_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (extra < 0 || i + extra >= s.size()) return i;
    for (int k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i;
    i += extra + 1;
  }
  return std::string_view::npos;
}

/// The encoding a PEP 263 declaration in the first two lines names ("latin-1"), or empty.
std::string declared_encoding(std::string_view s) {
  std::size_t start = 0;
  for (int line = 0; line < 2 && start < s.size(); ++line) {
    std::size_t end = s.find('\n', start);
    std::string_view text = s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    std::size_t hash = text.find('#');
    bool only_blank_before = hash != std::string_view::npos &&
                             text.substr(0, hash).find_first_not_of(" \t\f") == std::string_view::npos;
    if (only_blank_before) {
      std::size_t at = text.find("coding", hash);
      if (at != std::string_view::npos && at + 6 < text.size() && (text[at + 6] == ':' || text[at + 6] == '=')) {
        std::size_t begin = text.find_first_not_of(" \t", at + 7);
        std::size_t stop = begin;
        while (stop < text.size() && (std::isalnum(static_cast<unsigned char>(text[stop])) || text[stop] == '-' ||
                                      text[stop] == '_' || text[stop] == '.'))
          ++stop;
        if (begin != std::string_view::npos && stop > begin) return std::string(text.substr(begin, stop - begin));
      }
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return {};
}

int line_at(std::string_view s, std::size_t offset) {
  return 1 + static_cast<int>(std::count(s.begin(), s.begin() + std::min(offset, s.size()), '\n'));
}

/// Whitespace runs collapsed to one space, cut to `limit` bytes.
std::string compact(std::string_view text, std::size_t limit) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
    if (out.size() >= limit) break;
  }
  return out;
}

/// The pytest id of one parametrize value: a known id, or none for argname+index; `is_static`
/// false when pytest would print something this reading cannot know.
struct ValueId {
  bool is_static = true;
  std::optional<std::string> id;
};

class ModuleParser {
 public:
  ModuleParser(std::string_view path, std::string_view source, ModuleRecord& record)
      : path_(path), source_(source), record_(record) {}

  void run(TSNode root) {
    collect_tokens(root);
    add_scope(Scope::Kind::module, record_.module_name, record_.module_name, -1, root, root);
    visit_block(root, 0);
    for (std::size_t i = 0; i < record_.scopes.size(); ++i) finish_symbol(i);
    for (auto& symbol : variable_symbols_) record_.facts.symbols.push_back(std::move(symbol));
    if (all_state_ == AllState::literal) record_.star_exports = std::move(all_names_);
  }

  /// Module symbol only, for files that cannot be parsed at all.
  void run_without_tree() {
    Scope module;
    module.kind = Scope::Kind::module;
    module.qualified_name = module.name = record_.module_name;
    module.line = 1;
    record_.scopes.push_back(module);
    Symbol symbol;
    symbol.id = "py:" + record_.module_name;
    symbol.kind = SymbolKind::module;
    symbol.qualified_name = record_.module_name;
    symbol.file = path_;
    symbol.first_line = 1;
    symbol.last_line = line_at(source_, source_.size());
    symbol.body_hash = util::hash64(source_);
    record_.facts.symbols.push_back(symbol);
  }

 private:
  std::string_view text(TSNode node) const {
    uint32_t start = std::min<uint32_t>(ts_node_start_byte(node), source_.size());
    uint32_t end = std::min<uint32_t>(ts_node_end_byte(node), source_.size());
    return source_.substr(start, end - start);
  }

  // ---- body hashes --------------------------------------------------------------------------

  /// Whether a statement is a bare string: a docstring, or an attribute's docstring after a
  /// field (`x: int = 0` then `"""What x is."""`). It does nothing when run; an f-string could.
  bool is_bare_string(TSNode node) const {
    if (!is(node, "expression_statement") || ts_node_named_child_count(node) != 1) return false;
    TSNode inner = ts_node_named_child(node, 0);
    if (!is(inner, "string") && !is(inner, "concatenated_string")) return false;
    std::vector<TSNode> pending{inner};
    while (!pending.empty()) {
      TSNode n = pending.back();
      pending.pop_back();
      if (is(n, "interpolation")) return false;
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) pending.push_back(ts_node_named_child(n, i));
    }
    return true;
  }

  /// Leaf tokens of the whole file in order, without comments and bare strings (docstrings);
  /// strings are one token (their escapes are separate nodes, the text between them is not).
  void collect_tokens(TSNode root) {
    TSTreeCursor cursor = ts_tree_cursor_new(root);
    bool descend = true;
    while (true) {
      TSNode node = ts_tree_cursor_current_node(&cursor);
      bool skip = false;
      if (descend) {
        if (is(node, "comment") || type_checking_block(node)) {
          skip = true;
        } else if (is_bare_string(node)) {
          docs_.emplace_back(ts_node_start_byte(node), ts_node_end_byte(node));
          skip = true;
        } else if (is(node, "string") || ts_node_child_count(node) == 0) {
          if (ts_node_end_byte(node) > ts_node_start_byte(node))
            tokens_.emplace_back(ts_node_start_byte(node), ts_node_end_byte(node));
          skip = true;
        }
        if (!skip && ts_tree_cursor_goto_first_child(&cursor)) continue;
      }
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        descend = true;
        continue;
      }
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
      descend = false;
    }
    ts_tree_cursor_delete(&cursor);
  }

  std::uint64_t body_hash(TSNode node) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    auto it = std::lower_bound(tokens_.begin(), tokens_.end(), std::make_pair(start, uint32_t{0}));
    buffer_.clear();
    for (; it != tokens_.end() && it->first < end; ++it) {
      buffer_.append(source_.substr(it->first, it->second - it->first));
      buffer_ += '\x1f';
    }
    return util::hash64(buffer_);
  }

  /// A module's or class's own tokens: everything but its definitions and its variables'
  /// statements, which are symbols of their own (nor docstrings, which tokens_ leaves out).
  std::uint64_t own_hash(std::size_t index, TSNode node) {
    std::vector<std::pair<uint32_t, uint32_t>> excluded;
    for (int i : children_[index]) excluded.emplace_back(ts_node_start_byte(ranges_[i]), ts_node_end_byte(ranges_[i]));
    for (int v : scope_variables_[static_cast<int>(index)]) excluded.push_back(variable_ranges_[v]);
    std::sort(excluded.begin(), excluded.end());
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    auto it = std::lower_bound(tokens_.begin(), tokens_.end(), std::make_pair(start, uint32_t{0}));
    auto skip = excluded.begin();
    buffer_.clear();
    for (; it != tokens_.end() && it->first < end; ++it) {
      while (skip != excluded.end() && skip->second <= it->first) ++skip;
      if (skip != excluded.end() && skip->first <= it->first) continue;
      buffer_.append(source_.substr(it->first, it->second - it->first));
      buffer_ += '\x1f';
    }
    return util::hash64(buffer_);
  }

  /// A class's annotated fields in order: the parameters of a generated __init__. Kept apart from
  /// its own code, so that a field added or a field's docstring edited is not a change of the code
  /// every field's meaning hangs on (planner/change_set.cc).
  std::uint64_t fields_hash(std::size_t index) const {
    auto variables = scope_variables_.find(static_cast<int>(index));
    if (variables == scope_variables_.end()) return 0;
    std::string fields;
    for (int v : variables->second)
      if (variable_annotated_[v]) fields += record_.variables[v].name + ",";
    return fields.empty() ? 0 : util::hash64(fields);
  }

  /// A definition's own docstrings (not those of nested definitions, which have their own).
  std::uint64_t doc_hash(std::size_t index, TSNode node) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    auto it = std::lower_bound(docs_.begin(), docs_.end(), std::make_pair(start, uint32_t{0}));
    if (it == docs_.end() || it->first >= end) return 0;
    std::vector<std::pair<uint32_t, uint32_t>> nested;
    for (int i : children_[index]) nested.emplace_back(ts_node_start_byte(ranges_[i]), ts_node_end_byte(ranges_[i]));
    std::sort(nested.begin(), nested.end());
    std::string text;
    for (; it != docs_.end() && it->first < end; ++it) {
      auto after = std::upper_bound(nested.begin(), nested.end(), std::make_pair(it->first, UINT32_MAX));
      bool inner = after != nested.begin() && std::prev(after)->second >= it->second;
      if (!inner) text.append(source_.substr(it->first, it->second - it->first)) += '\x1f';
    }
    return text.empty() ? 0 : util::hash64(text);
  }

  // ---- module- and class-level variables -----------------------------------------------------

  /// Statements whose bindings become variables when they stand at module or class level.
  static bool binds_as_statement(TSNode node) {
    return is(node, "expression_statement") || is(node, "import_statement") ||
           is(node, "import_from_statement");
  }

  /// The variable for a binding of `name` in module or class `scope` by the current statement
  /// (one per name and statement), which reads in the rest of the statement feed.
  void add_variable(int scope, const NameBinding& binding) {
    // Lines map to every name of the statement; each name's hash covers only what binds it (an
    // import's own name and module), so the hashes tell which of them changed.
    TSNode hashed = ts_node_is_null(binding_range_) ? statement_ : binding_range_;
    std::uint64_t hash = body_hash(hashed);
    if (binding.kind == NameBinding::Kind::module_import || binding.kind == NameBinding::Kind::from_import)
      hash ^= util::hash64(binding.target + "\x1f" + binding.member);
    std::pair<uint32_t, uint32_t> bytes{ts_node_start_byte(statement_), ts_node_end_byte(statement_)};
    for (int v : statement_variables_)
      if (record_.variables[v].scope == scope && record_.variables[v].name == binding.name &&
          variable_ranges_[v] == bytes) {
        auto& symbol = variable_symbols_[v];
        if (!ts_node_is_null(binding_range_)) symbol.body_hash = (symbol.body_hash << 1 | symbol.body_hash >> 63) ^ hash;
        return;
      }
    const Scope& owner = record_.scopes[scope];
    int count = ++variable_counts_[scope][binding.name];
    Symbol symbol;
    symbol.id = "py:" + owner.qualified_name + "." + binding.name + "=";
    if (count > 1) symbol.id += "#" + std::to_string(count);
    symbol.kind = SymbolKind::variable;
    symbol.qualified_name = owner.qualified_name + "." + binding.name;
    symbol.file = path_;
    symbol.first_line = line_of(statement_);
    symbol.last_line = end_line_of(statement_);
    symbol.body_hash = hash;
    Variable variable{scope, binding.name, false, {}, {}};
    if (binding.kind == NameBinding::Kind::module_import || binding.kind == NameBinding::Kind::from_import) {
      variable.is_import = true;
      if (binding.kind == NameBinding::Kind::from_import) {
        variable.imported_module = binding.target;
        variable.imported_member = binding.member;
      }
    }
    statement_variables_.push_back(static_cast<int>(record_.variables.size()));
    scope_variables_[scope].push_back(static_cast<int>(record_.variables.size()));
    record_.variables.push_back(std::move(variable));
    variable_ranges_.push_back(bytes);
    variable_annotated_.push_back(annotated_statement_);
    variable_symbols_.push_back(std::move(symbol));
  }

  /// Calls that turn source text or docstrings into data (argparse help from config classes).
  static bool reads_docstrings(const std::string& callee) {
    static const char* kReaders[] = {"inspect.getdoc", "inspect.getsource", "inspect.getsourcelines",
                                     "inspect.getcomments", "ast.get_docstring", "getdoc", "getsource",
                                     "get_docstring", "pydoc.getdoc"};
    return std::any_of(std::begin(kReaders), std::end(kReaders), [&](const char* r) { return callee == r; });
  }

  /// A read of a name or dotted attribute chain; the linker keeps those that reach a variable.
  void record_read(int scope, std::string text, int line) {
    if (text.size() > 2 * kMaxCalleeText) return;
    bool statement_level = record_.scopes[scope].kind != Scope::Kind::function && !statement_variables_.empty();
    std::vector<int> owners = statement_level ? statement_variables_ : std::vector<int>{-1};
    for (int owner : owners) {
      std::string key = std::to_string(scope) + ":" + std::to_string(owner) + ":" +
                        std::to_string(definition_owner_) + ":" + text;
      if (!reads_seen_.insert(std::move(key)).second) continue;
      RawReference reference{scope, text, EdgeKind::read, line, false, definition_owner_, {}};
      reference.owner = owner;
      record_.references.push_back(std::move(reference));
    }
  }

  /// Reads while evaluating a definition's header (decorators, defaults, bases, annotations)
  /// run at definition time; they are attributed to the definition.
  struct DefinitionReads {
    DefinitionReads(ModuleParser& p, int definition) : parser(p), saved(p.definition_owner_) {
      p.definition_owner_ = definition;
    }
    ~DefinitionReads() { parser.definition_owner_ = saved; }
    ModuleParser& parser;
    int saved;
  };

  // ---- scopes -------------------------------------------------------------------------------

  int add_scope(Scope::Kind kind, std::string qualified_name, std::string name, int parent,
                TSNode definition, TSNode outer) {
    Scope scope;
    scope.kind = kind;
    scope.qualified_name = std::move(qualified_name);
    scope.name = std::move(name);
    scope.parent = parent;
    scope.line = line_of(definition);
    record_.scopes.push_back(std::move(scope));
    ranges_.push_back(outer);
    children_.emplace_back();
    if (parent >= 0) children_[parent].push_back(static_cast<int>(record_.scopes.size()) - 1);
    duplicate_counts_.emplace_back();
    return static_cast<int>(record_.scopes.size()) - 1;
  }

  void finish_symbol(std::size_t index) {
    const Scope& scope = record_.scopes[index];
    TSNode node = ranges_[index];
    Symbol symbol;
    symbol.id = "py:" + scope.qualified_name;
    symbol.qualified_name = scope.qualified_name;
    symbol.file = path_;
    symbol.first_line = line_of(node);
    symbol.last_line = end_line_of(node);
    if (index == 0) {
      symbol.first_line = 1;
      symbol.last_line = std::max(1, end_line_of(node));
    }
    symbol.body_hash = scope.kind == Scope::Kind::function ? body_hash(node) : own_hash(index, node);
    symbol.doc_hash = doc_hash(index, node);
    if (scope.kind == Scope::Kind::class_) symbol.fields_hash = fields_hash(index);
    if (scope.kind == Scope::Kind::module) symbol.kind = SymbolKind::module;
    else if (scope.kind == Scope::Kind::class_) symbol.kind = SymbolKind::class_;
    else if (record_.scopes[scope.parent].kind == Scope::Kind::class_) symbol.kind = SymbolKind::method;
    else symbol.kind = SymbolKind::function;
    record_.facts.symbols.push_back(std::move(symbol));
  }

  /// Qualified name for a new definition, "#2" etc. on a repeated name in the same scope.
  std::string child_name(int parent, const std::string& name) {
    int count = ++duplicate_counts_[parent][name];
    std::string qualified = record_.scopes[parent].qualified_name + "." + name;
    if (count > 1) qualified += "#" + std::to_string(count);
    return qualified;
  }

  void bind(int scope, NameBinding binding) {
    using K = NameBinding::Kind;
    if (comprehension_target_) {
      binding.comprehension = true;
      return record_.scopes[scope].bindings.push_back(std::move(binding));
    }
    if (certain_last_ > 0 && certain_name(binding.name) &&
        (binding.kind == K::definition || binding.kind == K::module_import || binding.kind == K::from_import ||
         binding.kind == K::alias || binding.kind == K::call_result || binding.kind == K::star_import)) {
      binding.statement_first = certain_first_;
      binding.statement_last = certain_last_;
    }
    if (record_.scopes[scope].kind != Scope::Kind::function && !ts_node_is_null(statement_) &&
        binding.kind != NameBinding::Kind::definition && binding.kind != NameBinding::Kind::parameter &&
        binding.kind != NameBinding::Kind::star_import && !binding.name.empty() &&
        binding.name.find_first_of(".[") == std::string::npos)
      add_variable(scope, binding);
    auto declared = globals_.find(scope);
    if (binding.kind != NameBinding::Kind::definition && declared != globals_.end() &&
        declared->second.contains(binding.name)) {
      // `global x` then `x = builder.load()`: a module-level value, evaluated where it is assigned
      // (whenever the function runs: not in the module's order)
      binding.scope = scope;
      binding.statement_first = binding.statement_last = 0;
      scope = 0;
    }
    record_.scopes[scope].bindings.push_back(std::move(binding));
  }

  /// A name whose value or element positions change outside its bindings (ModuleRecord::rebound_names),
  /// by its last name: `mod.KEY` and `self.items` as "KEY" and "items".
  void note_rebound(std::string_view dotted) {
    std::string_view last = dotted.substr(dotted.rfind('.') + 1);
    last = last.substr(0, last.find_first_of("[("));
    if (last.empty() || !rebound_seen_.insert(std::string(last)).second) return;
    record_.rebound_names.emplace_back(last);
  }

  /// "#i:1" or "#s:name": an integer or string literal a constant key can be read from.
  std::optional<std::string> literal_text(TSNode node) const {
    auto key = constant_key(node);
    return key ? std::optional<std::string>("#" + *key) : std::nullopt;
  }

  /// A plain name, or a constant-keyed element of one ("d[=s:k]"): what a statement can replace.
  static bool certain_name(std::string_view name) {
    if (name.find('.') != std::string_view::npos) return false;
    for (std::size_t at = name.find('['); at != std::string_view::npos; at = name.find('[', at + 1))
      if (at + 1 >= name.size() || name[at + 1] != '=') return false;
    return true;
  }

  /// The key of `d[k]` where k is a string or decimal integer literal that a dotted text can
  /// carry ("s:name", "i:3"); none for anything else (names, expressions, other characters).
  std::optional<std::string> constant_key(TSNode index) const {
    if (ts_node_is_null(index)) return std::nullopt;
    const std::string_view source_text = text(index);
    if (is(index, "integer")) {
      if (source_text.empty() || source_text.size() > 18 || (source_text.size() > 1 && source_text[0] == '0') ||
          !std::all_of(source_text.begin(), source_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
      return "i:" + std::string(source_text);
    }
    if (!is(index, "string")) return std::nullopt;
    auto value = string_literal_value(source_text);
    return value ? string_key(*value) : std::nullopt;
  }

  /// "s:name" for a string key of the characters a dotted text can carry.
  static std::optional<std::string> string_key(std::string_view value) {
    if (value.empty() || value.size() > 64 || !std::all_of(value.begin(), value.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        }))
      return std::nullopt;
    return "s:" + std::string(value);
  }

  /// `d["a"][0]`: "d[=s:a][=i:0]" where every subscript of a plain name has a constant key; none
  /// otherwise (the plain "d[][]" form is then all there is).
  /// `names`: a read's subscript by a plain name is kept as "[=v:name]", for the resolver to read
  /// the constants the name certainly holds (Resolver::constant_keys); a store's is no key.
  std::optional<std::string> keyed_text(TSNode node, int depth = 0, bool names = false) const {
    if (depth > 8) return std::nullopt;
    if (is(node, "identifier")) return std::string(text(node));
    if (!is(node, "subscript")) return std::nullopt;
    TSNode index = field(node, "subscript");
    auto key = constant_key(index);
    if (!key && names && !ts_node_is_null(index) && is(index, "identifier")) key = "v:" + std::string(text(index));
    if (!key) return std::nullopt;
    auto container = keyed_text(field(node, "value"), depth + 1, names);
    if (!container) return std::nullopt;
    return keyed_element_name(*container, *key);
  }

  /// The class whose method `scope` is, when `name` is that method's first parameter.
  int self_class(int scope, std::string_view name) const {
    const Scope& s = record_.scopes[scope];
    if (s.kind != Scope::Kind::function || s.is_staticmethod || s.parameters.empty()) return -1;
    if (s.parameters.front() != name) return -1;
    if (record_.scopes[s.parent].kind != Scope::Kind::class_) return -1;
    return s.parent;
  }

  /// The class enclosing `scope` that is named `name` (`Base.shared = load()` in one of its methods), or -1.
  int enclosing_class_named(int scope, std::string_view name) const {
    for (int s = record_.scopes[scope].parent; s >= 0; s = record_.scopes[s].parent)
      if (record_.scopes[s].kind == Scope::Kind::class_ && record_.scopes[s].name == name) return s;
    return -1;
  }

  // ---- expressions as dotted text ------------------------------------------------------------

  /// foo, a.b.c, f().g, super().m, x[].y; none for anything else.
  std::optional<std::string> dotted_text(TSNode node, int depth = 0) const {
    if (depth > 64) return std::nullopt;
    if (is(node, "identifier")) return std::string(text(node));
    if (is(node, "attribute")) {
      auto object = dotted_text(field(node, "object"), depth + 1);
      TSNode attribute = field(node, "attribute");
      if (!object || ts_node_is_null(attribute)) return std::nullopt;
      return *object + "." + std::string(text(attribute));
    }
    if (is(node, "call")) {
      auto function = dotted_text(field(node, "function"), depth + 1);
      if (!function) return std::nullopt;
      return *function + "(" + argument_texts(field(node, "arguments"), depth + 1) + ")";
    }
    if (is(node, "subscript")) {
      if (keyed_texts_)
        if (auto keyed = keyed_text(node, 0, true)) return *keyed;
      auto value = dotted_text(field(node, "value"), depth + 1);
      if (!value) return std::nullopt;
      return *value + "[]";
    }
    if (is(node, "parenthesized_expression") && ts_node_named_child_count(node) == 1)
      return dotted_text(ts_node_named_child(node, 0), depth + 1);
    if (is(node, "lambda")) {
      // A lambda is its scope, written "@<scope index>" as a decorated definition itself is.
      auto found = lambda_scopes_.find(ts_node_start_byte(node));
      if (found != lambda_scopes_.end()) return "@" + std::to_string(found->second);
    }
    return std::nullopt;
  }

  /// The leading positional arguments of a call as dotted texts joined by ',' ("" for one that is
  /// not dotted), so the linker can follow values passed through (typing.cast, identity wrappers).
  std::string argument_texts(TSNode arguments, int depth) const {
    std::vector<std::string> texts = call_arguments(arguments, depth, false);
    auto keyword = std::find_if(texts.begin(), texts.end(), [](const auto& t) { return t.find('=') != std::string::npos; });
    texts.erase(keyword, texts.end());
    if (texts.size() > kMaxPassedArguments) texts.resize(kMaxPassedArguments);
    while (!texts.empty() && texts.back().empty()) texts.pop_back();
    std::string joined;
    for (std::size_t i = 0; i < texts.size(); ++i) joined += (i ? "," : "") + texts[i];
    return joined;
  }

  /// A passed value as call_arguments keeps it: its dotted text, else (`literals`) its literal text.
  std::optional<std::string> argument_text(TSNode value, int depth, bool literals) const {
    auto text = dotted_text(value, depth);
    if (!text && literals) text = literal_text(value);
    return text;
  }

  /// Every argument of a call for parameter flow: positional dotted texts ("" where not dotted),
  /// then "name=text" for keyword arguments whose value is dotted. Empty when nothing is dotted
  /// (`literals`: when nothing is passed).
  /// `literals`: integer and string literals count as dotted, written "#i:1" (literal_text).
  std::vector<std::string> call_arguments(TSNode arguments, int depth = 0, bool literals = true) const {
    std::vector<std::string> positional, keyword;
    if (ts_node_is_null(arguments) || !is(arguments, "argument_list")) return {};
    bool any = false;
    for (TSNode argument : children(arguments)) {
      if (positional.size() + keyword.size() >= kMaxFlowArguments) break;
      if (is(argument, "keyword_argument")) {
        TSNode name = field(argument, "name");
        auto value = argument_text(field(argument, "value"), depth + 1, literals);
        if (!ts_node_is_null(name) && value && value->size() <= kMaxCalleeText) {
          keyword.push_back(std::string(text(name)) + "=" + *value);
          any = true;
        }
        continue;
      }
      if (is(argument, "list_splat") || is(argument, "dictionary_splat")) break;  // positions unknown after
      if (!keyword.empty()) continue;
      auto value = argument_text(argument, depth + 1, literals);
      bool kept = value && value->size() <= kMaxCalleeText;
      positional.push_back(kept ? *value : std::string());
      any |= kept;
    }
    // A call passing only expressions (or splats) still says that it passes something: one ""
    // keeps it among the call sites a parameter's constants must agree with (constant_keys).
    if (!any) return literals && ts_node_named_child_count(arguments) > 0 ? std::vector<std::string>{""}
                                                                          : std::vector<std::string>{};
    positional.insert(positional.end(), keyword.begin(), keyword.end());
    return positional;
  }

  /// The repository class an annotation names: X, "X", Optional[X], Union[X, None], X | None.
  std::string annotated_class(TSNode annotation, int depth = 0) const {
    if (ts_node_is_null(annotation) || depth > 8) return {};
    if (is(annotation, "type") && ts_node_named_child_count(annotation) == 1)
      return annotated_class(ts_node_named_child(annotation, 0), depth + 1);
    if (is(annotation, "identifier") || is(annotation, "attribute")) return dotted_text(annotation).value_or("");
    if (is(annotation, "string")) {
      std::string_view quoted = text(annotation);
      if (quoted.size() < 2) return {};
      std::string inner(quoted.substr(1, quoted.size() - 2));
      bool dotted = !inner.empty() && std::all_of(inner.begin(), inner.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
      });
      return dotted ? inner : std::string();
    }
    std::vector<TSNode> members;
    if (is(annotation, "binary_operator")) {
      members = {field(annotation, "left"), field(annotation, "right")};
    } else if (is(annotation, "union_type")) {
      members = children(annotation);
    } else if (is(annotation, "generic_type") || is(annotation, "subscript")) {
      TSNode head = is(annotation, "subscript") ? field(annotation, "value") : ts_node_named_child(annotation, 0);
      auto name = ts_node_is_null(head) ? std::nullopt : dotted_text(head);
      if (!name || (*name != "Optional" && *name != "typing.Optional" && *name != "Union" && *name != "typing.Union"))
        return {};
      for (TSNode child : children(annotation))
        if (!ts_node_eq(child, head)) members.push_back(child);
      if (members.size() == 1 && is(members[0], "type_parameter")) members = children(members[0]);
    }
    std::string found;
    for (TSNode member : members) {
      if (ts_node_is_null(member) || text(member) == "None") continue;
      std::string candidate = annotated_class(member, depth + 1);
      if (candidate.empty() || (!found.empty() && found != candidate)) return {};
      found = candidate;
    }
    return found;
  }

  // ---- walking ---------------------------------------------------------------------------------

  void visit_block(TSNode node, int scope) {
    TSNode saved_statement = body_statement_;
    int saved_scope = body_scope_;
    for (TSNode child : children(node)) {
      body_statement_ = child;
      body_scope_ = scope;
      register_lambdas(child, scope, 0);
      visit(child, scope);
    }
    body_statement_ = saved_statement;
    body_scope_ = saved_scope;
  }

  /// While it lives, what `bind` binds by name is certain when `statement` is a statement of
  /// `scope`'s own body (see NameBinding::statement_first): it runs, in order, whenever the
  /// code after it runs.
  class CertainBindings {
   public:
    CertainBindings(ModuleParser& parser, TSNode statement, int scope)
        : parser_(parser), first_(parser.certain_first_), last_(parser.certain_last_) {
      bool certain = scope == parser.body_scope_ && !ts_node_is_null(statement) &&
                     ts_node_eq(statement, parser.body_statement_);
      parser.certain_first_ = certain ? line_of(statement) : 0;
      parser.certain_last_ = certain ? end_line_of(statement) : 0;
    }
    ~CertainBindings() {
      parser_.certain_first_ = first_;
      parser_.certain_last_ = last_;
    }
    CertainBindings(const CertainBindings&) = delete;
    CertainBindings& operator=(const CertainBindings&) = delete;

   private:
    ModuleParser& parser_;
    int first_, last_;
  };

  /// The statement an assignment or a call is the whole of (`a = f`, `d.update(...)`): its
  /// expression statement, else none.
  TSNode whole_statement(TSNode expression) const {
    if (ts_node_is_null(body_statement_) || !is(body_statement_, "expression_statement") ||
        ts_node_named_child_count(body_statement_) != 1 || !ts_node_eq(ts_node_named_child(body_statement_, 0), expression))
      return TSNode{};
    return body_statement_;
  }

  /// Gives each lambda a statement evaluates in `scope` its own scope, numbered as PyCG names them
  /// (<lambda1>, <lambda2>, ... per enclosing scope, in source order), before the statement is
  /// read: an assignment binds, and a call passes, the lambda's dotted text ("@<index>") before
  /// the lambda itself is visited. Bodies of nested definitions and lambdas are their own scopes'.
  void register_lambdas(TSNode node, int scope, int depth) {
    if (depth > kMaxDepth) return;
    if (is(node, "lambda")) {
      uint32_t start = ts_node_start_byte(node);
      if (lambda_scopes_.count(start)) return;
      std::string name = "<lambda" + std::to_string(++lambda_counts_[scope]) + ">";
      lambda_scopes_[start] = add_scope(Scope::Kind::function, child_name(scope, name), name, scope, node, node);
      return;
    }
    if (is(node, "function_definition")) {
      TSNode parameters = field(node, "parameters");  // defaults are evaluated in `scope`
      if (!ts_node_is_null(parameters)) register_lambdas(parameters, scope, depth + 1);
      return;
    }
    if (is(node, "class_definition")) {
      TSNode superclasses = field(node, "superclasses");
      if (!ts_node_is_null(superclasses)) register_lambdas(superclasses, scope, depth + 1);
      return;
    }
    for (TSNode child : children(node)) register_lambdas(child, scope, depth + 1);
  }

  /// A lambda: a function scope of its own (named by register_lambdas) whose calls are its own.
  /// Its enclosing scope references it (a callback kept for reachability, like a function passed
  /// by name); calls of it link where it is called, through the names and arguments holding it.
  void define_lambda(TSNode node, int scope) {
    register_lambdas(node, scope, 0);
    auto found = lambda_scopes_.find(ts_node_start_byte(node));
    if (found == lambda_scopes_.end() || found->second == scope) return;
    int index = found->second;
    // At module or class level the statement's variables hold the lambda (`key = lambda x: ...`).
    bool statement_level = record_.scopes[scope].kind != Scope::Kind::function && !statement_variables_.empty();
    for (int owner : statement_level ? statement_variables_ : std::vector<int>{-1}) {
      RawReference reference{scope, "@" + std::to_string(index), EdgeKind::reference, line_of(node), false, -1, {}};
      reference.owner = owner;
      record_.references.push_back(std::move(reference));
    }
    {
      DefinitionReads reads(*this, index);
      TSNode parameters = field(node, "parameters");
      if (!ts_node_is_null(parameters)) read_parameters(parameters, scope, index);
    }
    TSNode body = field(node, "body");
    if (ts_node_is_null(body)) return;
    std::size_t first_reference = record_.references.size();
    register_lambdas(body, index, 0);
    if (auto value = value_text(body)) record_.scopes[index].returns.push_back(*value);
    visit(body, index);
    drop_local_reads(index, first_reference);
  }

  void visit_children(TSNode node, int scope) {
    for (TSNode child : children(node)) visit(child, scope);
  }

  void visit(TSNode node, int scope) {
    if (depth_ >= kMaxDepth) {
      if (!depth_warned_) {
        depth_warned_ = true;
        record_.facts.diagnostics.push_back(
            {Diagnostic::Severity::warning, path_, line_of(node),
             "syntax nested deeper than " + std::to_string(kMaxDepth) +
                 " levels; calls inside it are not recorded"});
      }
      return;
    }
    ++depth_;
    dispatch(node, scope);
    --depth_;
  }

  void dispatch(TSNode node, int scope) {
    if (record_.scopes[scope].kind == Scope::Kind::function || !binds_as_statement(node))
      return dispatch_node(node, scope);
    TSNode saved = statement_;
    std::vector<int> saved_variables = std::move(statement_variables_);
    bool saved_annotated = annotated_statement_;
    statement_ = node;
    statement_variables_.clear();
    TSNode first = ts_node_named_child(node, 0);
    annotated_statement_ = !ts_node_is_null(first) && is(first, "assignment") && !ts_node_is_null(field(first, "type"));
    dispatch_node(node, scope);
    statement_ = saved;
    statement_variables_ = std::move(saved_variables);
    annotated_statement_ = saved_annotated;
  }

  void dispatch_node(TSNode node, int scope) {
    const char* type = ts_node_type(node);
    if (std::strcmp(type, "function_definition") == 0) return define_function(node, scope, {}, node);
    if (std::strcmp(type, "class_definition") == 0) return define_class(node, scope, {}, node);
    if (std::strcmp(type, "decorated_definition") == 0) return decorated(node, scope);
    if (std::strcmp(type, "call") == 0) return call(node, scope);
    if (std::strcmp(type, "assignment") == 0) return assignment(node, scope);
    if (std::strcmp(type, "import_statement") == 0) return import_statement(node, scope);
    if (std::strcmp(type, "if_statement") == 0 && record_.scopes[scope].kind == Scope::Kind::module &&
        is_main_guard(field(node, "condition")))
      return;  // runs only as a script, never on import: importers do not depend on what it calls
    if (type_checking_block(node)) {
      // Never runs; its imports bind names annotations use: the body is read, not the condition
      // (no module-level read of TYPE_CHECKING that would make its importers depend on it).
      // visit_children, not visit_block: its statements are no certain bindings of the module's body.
      TSNode body = field(node, "consequence");
      if (!ts_node_is_null(body)) visit_children(body, scope);
      return;
    }
    if (std::strcmp(type, "augmented_assignment") == 0) {
      TSNode left = field(node, "left");
      if (!ts_node_is_null(left) && (is(left, "identifier") || is(left, "attribute")))
        if (auto name = dotted_text(left)) note_rebound(*name);
      if (!ts_node_is_null(left) && is(left, "identifier") && record_.scopes[scope].kind != Scope::Kind::function)
        bind(scope, {std::string(text(left)), NameBinding::Kind::other, "", "", -1, line_of(left)});
      if (!ts_node_is_null(left) && is(left, "identifier") && text(left) == "__all__" &&
          record_.scopes[scope].kind == Scope::Kind::module)
        read_all(field(node, "right"));
      return visit_children(node, scope);
    }
    if (std::strcmp(type, "delete_statement") == 0) {
      // del xs[i]: the elements after i move up.
      for (TSNode target : children(node))
        for (TSNode deleted : is(target, "expression_list") ? children(target) : std::vector<TSNode>{target})
          if (is(deleted, "subscript"))
            if (auto container = dotted_text(field(deleted, "value"))) note_rebound(*container);
      return visit_children(node, scope);
    }
    if (std::strcmp(type, "global_statement") == 0) {
      for (TSNode name : children(node))
        if (is(name, "identifier")) globals_[scope].insert(std::string(text(name)));
      return;
    }
    if (std::strcmp(type, "import_from_statement") == 0) return import_from(node, scope);
    if (std::strcmp(type, "return_statement") == 0) return return_statement(node, scope);
    if (std::strcmp(type, "raise_statement") == 0) {
      // `raise Error` constructs the exception: a call of the class where the repository defines
      // it; a builtin's or library's (`raise StopIteration`) runs no repository code, so no placeholder.
      TSNode raised = ts_node_named_child(node, 0);
      if (!ts_node_is_null(raised) && (is(raised, "identifier") || is(raised, "attribute")))
        if (auto text = dotted_text(raised)) record_.references.push_back({scope, *text, EdgeKind::call, line_of(raised), false, -1, {}});
      return visit_children(node, scope);
    }
    if (std::strcmp(type, "for_statement") == 0) {
      bind_loop_target(field(node, "left"), field(node, "right"), scope);
      return visit_children(node, scope);
    }
    if (std::strcmp(type, "for_in_clause") == 0) {
      // [m.forward() for m in models]: the comprehension's variable holds the elements as a loop's
      // does. Python 3 scopes it to the comprehension, which is not a scope here: bound in the
      // enclosing one, but never as a certain binding nor as a module variable (it binds nothing there).
      const bool outer = std::exchange(comprehension_target_, true);
      bind_loop_target(field(node, "left"), field(node, "right"), scope);
      comprehension_target_ = outer;
      return visit_children(node, scope);
    }
    if (std::strcmp(type, "with_statement") == 0) return with_statement(node, scope);
    if (std::strcmp(type, "lambda") == 0) return define_lambda(node, scope);
    if (std::strcmp(type, "yield") == 0) {
      // What a generator yields is what iterating its result gives (see the "@element" binding).
      TSNode value = ts_node_named_child(node, 0);
      if (!ts_node_is_null(value) && record_.scopes[scope].kind == Scope::Kind::function)
        if (auto yielded = value_text(value)) record_.scopes[scope].returns.push_back(*yielded);
      return visit_children(node, scope);
    }
    if (std::strcmp(type, "ERROR") == 0 || std::strcmp(type, "comment") == 0) return;
    if (std::strcmp(type, "identifier") == 0) {
      if (text(node) == "__doc__") record_read(scope, kDocstringReader, line_of(node));
      return record_read(scope, std::string(text(node)), line_of(node));
    }
    if (std::strcmp(type, "attribute") == 0) {
      TSNode object = field(node, "object");
      auto chain = dotted_text(node);
      if (chain) record_read(scope, *chain, line_of(node));
      if (chain && chain->ends_with(".__doc__")) record_read(scope, kDocstringReader, line_of(node));
      // The chain names its own prefixes; only calls and subscripts inside it read more.
      if (!ts_node_is_null(object) && (!chain || !(is(object, "identifier") || is(object, "attribute"))))
        visit(object, scope);
      else if (!ts_node_is_null(object) && is(object, "attribute"))
        visit_inner_object(object, scope);
      return;
    }
    if (std::strcmp(type, "keyword_argument") == 0) {
      TSNode value = field(node, "value");
      if (!ts_node_is_null(value)) visit(value, scope);
      return;
    }
    if (std::strcmp(type, "integer") == 0 || std::strcmp(type, "float") == 0) return;
    visit_children(node, scope);
  }

  /// `for <left> in <right>` (a statement or a comprehension's clause): iterating calls __iter__ and
  /// __next__ where the iterable is a repository object; the targets hold its elements.
  void bind_loop_target(TSNode left, TSNode right, int scope) {
    auto iterable = ts_node_is_null(right) ? std::nullopt : dotted_text(right);
    if (iterable) {
      record_.references.push_back({scope, *iterable + ".__iter__", EdgeKind::call, line_of(right), false, -1, {}});
      record_.references.push_back(
          {scope, *iterable + ".__iter__().__next__", EdgeKind::call, line_of(right), false, -1, {}});
    }
    if (!ts_node_is_null(left) && !ts_node_is_null(right) && bind_iteration_helpers(left, right, scope)) {
      // for i, f in enumerate(fns) / zip(a, b) / d.items(), for f in d.values(): bound per target.
    } else if (!ts_node_is_null(left) && is(left, "identifier") && iterable) {
      bind(scope, {std::string(text(left)), NameBinding::Kind::alias, *iterable, "@element", -1, line_of(left)});
    } else if (!ts_node_is_null(left)) {
      bind_unknown_targets(left, scope);
    }
  }

  /// The loop targets of the iteration helpers whose items are a container's elements:
  /// `enumerate(xs)` (i, x), `zip(a, b, ...)` (one target per argument), `d.items()` (key, value)
  /// and `d.values()`: each target that receives elements is bound to them as `for x in xs` binds
  /// x ("@element"), the others are unknown. False when the loop is not of that shape.
  bool bind_iteration_helpers(TSNode left, TSNode right, int scope) {
    if (!is(right, "call")) return false;
    auto callee = dotted_text(field(right, "function"));
    TSNode arguments = field(right, "arguments");
    if (!callee || ts_node_is_null(arguments)) return false;
    std::vector<TSNode> targets = is(left, "pattern_list") || is(left, "tuple_pattern") || is(left, "list_pattern")
                                      ? children(left)
                                      : std::vector<TSNode>{left};
    std::vector<std::optional<std::string>> sources(targets.size());  // the container each target iterates
    auto positional = children(arguments);
    std::erase_if(positional, [](TSNode n) { return is(n, "keyword_argument") || is(n, "comment"); });
    std::size_t dot = callee->rfind('.');
    std::string method = dot == std::string::npos ? "" : callee->substr(dot + 1);
    std::string object = dot == std::string::npos ? "" : callee->substr(0, dot);
    if (*callee == "enumerate" && targets.size() == 2 && !positional.empty()) {
      sources[1] = dotted_text(positional[0]);
    } else if (*callee == "zip" && targets.size() == positional.size()) {
      for (std::size_t i = 0; i < targets.size(); ++i) sources[i] = dotted_text(positional[i]);
    } else if (method == "items" && targets.size() == 2 && positional.empty() &&
               object.find_first_of("([") == std::string::npos) {
      sources[1] = object;
    } else if (method == "values" && targets.size() == 1 && is(left, "identifier") && positional.empty() &&
               object.find_first_of("([") == std::string::npos) {
      sources[0] = object;
    } else {
      return false;
    }
    for (std::size_t i = 0; i < targets.size(); ++i) {
      if (sources[i] && is(targets[i], "identifier"))
        bind(scope, {std::string(text(targets[i])), NameBinding::Kind::alias, *sources[i], "@element", -1,
                     line_of(targets[i])});
      else
        bind_unknown_targets(targets[i], scope);
    }
    return true;
  }

  /// `with m as y:` runs m.__enter__() on entry and m.__exit__() on the way out (`async with`:
  /// __aenter__/__aexit__): calls of the manager's class, recorded as calls on the manager's text
  /// so the resolver finds them on whatever class its value has. `y` is bound to what __enter__
  /// returns ("@enter", see Resolver::entered_values); a generator under @contextmanager has no
  /// __enter__ of its own in the repository, and there `y` is what it yields.
  void with_statement(TSNode node, int scope) {
    bool asynchronous = text(node).starts_with("async");
    const char* enter = asynchronous ? "__aenter__" : "__enter__";
    const char* exit = asynchronous ? "__aexit__" : "__exit__";
    for (TSNode clause : children(node)) {
      if (!is(clause, "with_clause")) continue;
      for (TSNode item : children(clause)) {
        if (!is(item, "with_item")) continue;
        TSNode value = field(item, "value");
        TSNode target{};
        if (!ts_node_is_null(value) && is(value, "as_pattern")) {
          TSNode alias = field(value, "alias");
          if (!ts_node_is_null(alias)) target = ts_node_named_child(alias, 0);
          value = ts_node_named_child(value, 0);
        }
        auto manager = ts_node_is_null(value) ? std::nullopt : dotted_text(value);
        if (manager && manager->size() <= 2 * kMaxCalleeText) {
          // Only a repository method is an edge: library managers (torch.no_grad()) add nothing.
          for (const char* method : {enter, exit})
            record_.references.push_back(
                {scope, *manager + "." + method, EdgeKind::call, line_of(value), false, -1, {}});
        }
        if (ts_node_is_null(target)) continue;
        if (manager && is(target, "identifier"))
          bind(scope, {std::string(text(target)), NameBinding::Kind::alias, *manager,
                       asynchronous ? "@aenter" : "@enter", -1, line_of(target)});
        else
          bind_unknown_targets(target, scope);
      }
    }
    visit_children(node, scope);
  }

  /// The innermost object of an attribute chain, when it is a call or subscript (a.f(x).b).
  void visit_inner_object(TSNode node, int scope) {
    while (!ts_node_is_null(node) && is(node, "attribute")) node = field(node, "object");
    if (!ts_node_is_null(node) && !is(node, "identifier")) visit(node, scope);
  }

  void return_statement(TSNode node, int scope) {
    for (TSNode child : children(node)) {
      if (auto value = value_text(child)) record_.scopes[scope].returns.push_back(*value);
    }
    visit_children(node, scope);
  }

  /// What a value expression evaluates to, as the linker understands it: "F()" for a call result,
  /// "a.b" for a name, none otherwise.
  std::optional<std::string> value_text(TSNode node) const { return dotted_text(node); }

  // ---- calls ------------------------------------------------------------------------------------

  void call(TSNode node, int scope) {
    TSNode function = field(node, "function");
    TSNode arguments = field(node, "arguments");
    if (record_.scopes[scope].kind == Scope::Kind::module && !ts_node_is_null(function) && !ts_node_is_null(arguments))
      if (auto callee = dotted_text(function); callee && (*callee == "__all__.extend" || *callee == "__all__.append")) {
        auto values = children(arguments);
        if (values.size() != 1) all_state_ = AllState::dynamic;
        else if (*callee == "__all__.extend") read_all(values[0]);
        else read_all_name(values[0]);
      }
    if (!ts_node_is_null(function)) {
      note_reorder_or_setattr(function, arguments);
      auto callee = dotted_text(function);
      RawReference reference;
      reference.scope = scope;
      reference.kind = EdgeKind::call;
      reference.line = line_of(node);
      reference.text = callee ? *callee : "<" + compact(text(function), kMaxCalleeText) + ">";
      if (callee && callee->find('[') != std::string::npos) {
        // d["k"](): the element stored under that key (Resolver::keyed_element).
        keyed_texts_ = true;
        if (auto keyed = dotted_text(function)) reference.text = *keyed;
        keyed_texts_ = false;
      }
      reference.arguments = call_arguments(arguments);
      if (reads_docstrings(reference.text)) record_read(scope, kDocstringReader, reference.line);
      record_.references.push_back(std::move(reference));
      visit(function, scope);
    }
    if (!ts_node_is_null(function) && !ts_node_is_null(arguments)) {
      CertainBindings certain(*this, whole_statement(node), scope);
      bind_added_element(function, arguments, scope);
    }
    if (!ts_node_is_null(arguments)) {
      for (TSNode argument : children(arguments)) {
        TSNode value = is(argument, "keyword_argument") ? field(argument, "value") : argument;
        if (!ts_node_is_null(value) && (is(value, "identifier") || is(value, "attribute"))) {
          if (auto passed = dotted_text(value))
            record_.references.push_back({scope, *passed, EdgeKind::reference, line_of(value), false, -1, {}});
        }
        visit(argument, scope);
      }
    }
  }

  /// `xs.insert(0, f)`, `xs.sort()` and the like move a container's elements; `setattr(m, "K", v)`
  /// rebinds an attribute (ModuleRecord::rebound_names).
  void note_reorder_or_setattr(TSNode function, TSNode arguments) {
    if (is(function, "attribute")) {
      std::string_view method = text(field(function, "attribute"));
      if (method == "insert" || method == "pop" || method == "remove" || method == "sort" || method == "reverse" ||
          method == "popitem")
        if (auto container = dotted_text(field(function, "object"))) note_rebound(*container);
      return;
    }
    if (text(function) != "setattr" || ts_node_is_null(arguments)) return;
    auto values = children(arguments);
    if (values.size() >= 2 && is(values[1], "string"))
      if (auto name = string_literal_value(text(values[1]))) note_rebound(*name);
  }

  // ---- assignments --------------------------------------------------------------------------------

  void assignment(TSNode node, int scope) {
    std::vector<TSNode> targets;
    TSNode value = node;
    while (!ts_node_is_null(value) && is(value, "assignment")) {
      TSNode left = field(value, "left");
      if (!ts_node_is_null(left)) targets.push_back(left);
      value = field(value, "right");
    }
    TSNode statement = whole_statement(node);
    for (TSNode target : targets) {
      if (ts_node_is_null(value)) {
        bind_unknown_targets(target, scope);  // annotation only: `x: int`
        continue;
      }
      {
        CertainBindings certain(*this, statement, scope);
        bind_target(target, value, scope);
      }
      special_assignment(target, value, scope);
      visit_target(target, scope);
    }
    if (!ts_node_is_null(value)) visit(value, scope);
    // A field's annotation in a class body is read by the code a library builds from the class
    // (a pydantic model constructs the model it names): the field reads the classes it names.
    TSNode annotation = field(node, "type");
    if (!ts_node_is_null(annotation) && record_.scopes[scope].kind == Scope::Kind::class_) visit(annotation, scope);
  }

  /// A module-level `__all__ = [...]` (or `+=`, `.extend(...)`): its string names join the star
  /// exports; anything else it is given makes them unknown (every public name).
  void read_all(TSNode value) {
    if (all_state_ == AllState::dynamic) return;
    if (!ts_node_is_null(value) && (is(value, "list") || is(value, "tuple"))) {
      all_state_ = AllState::literal;  // `__all__ = []` exports nothing
      for (TSNode item : children(value))
        if (!is(item, "comment")) read_all_name(item);
      return;
    }
    all_state_ = AllState::dynamic;
  }

  /// One name of `__all__`: a string literal, else the exports become unknown.
  void read_all_name(TSNode item) {
    if (all_state_ == AllState::dynamic) return;
    auto name = is(item, "string") ? string_literal_value(text(item)) : std::nullopt;
    if (!name) {
      all_state_ = AllState::dynamic;
      return;
    }
    all_state_ = AllState::literal;
    if (std::find(all_names_.begin(), all_names_.end(), *name) == all_names_.end()) all_names_.push_back(*name);
  }

  /// A module-level `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`) without `else`/`elif`: its body
  /// never runs (typing.TYPE_CHECKING is False at run time). Its bindings stay for the resolver
  /// (annotations name them) but its tokens hash nothing, so a change there changes no symbol.
  bool type_checking_block(TSNode node) const {
    if (!is(node, "if_statement")) return false;
    TSNode parent = ts_node_parent(node);
    if (ts_node_is_null(parent) || !is(parent, "module")) return false;
    if (!ts_node_is_null(field(node, "alternative"))) return false;
    TSNode condition = field(node, "condition");
    if (ts_node_is_null(condition)) return false;
    std::string_view t = text(condition);
    return t == "TYPE_CHECKING" || t == "typing.TYPE_CHECKING";
  }

  /// `__name__ == "__main__"` (either order, either quotes).
  bool is_main_guard(TSNode condition) const {
    if (ts_node_is_null(condition) || !is(condition, "comparison_operator")) return false;
    std::string t;
    for (char c : text(condition))
      if (c != ' ' && c != '\'' && c != '"') t += c;
    return t == "__name__==__main__" || t == "__main__==__name__";
  }

  /// Plain-name reads of a function's own locals and parameters reach no module or class name
  /// (Python scoping): dropped once the body is read, which keeps records and linking small.
  /// Dotted reads (`self.x`) stay: their attributes may be class attributes.
  void drop_local_reads(int function, std::size_t first_reference) {
    const auto& bindings = record_.scopes[function].bindings;
    if (bindings.empty()) return;
    std::unordered_set<std::string_view> locals;
    for (const auto& b : bindings) locals.insert(b.name);
    auto begin = record_.references.begin() + static_cast<std::ptrdiff_t>(first_reference);
    auto kept = std::remove_if(begin, record_.references.end(), [&](const RawReference& r) {
      return r.kind == EdgeKind::read && r.scope == function && r.owner < 0 && r.decorated < 0 &&
             r.text.find_first_of(".([<") == std::string::npos && locals.count(r.text);
    });
    record_.references.erase(kept, record_.references.end());
  }

  /// What an assignment target reads: the object of `a.b = v`, the container and key of `d[k] = v`.
  void visit_target(TSNode target, int scope) {
    if (is(target, "identifier")) return;
    if (is(target, "attribute")) {
      TSNode object = field(target, "object");
      if (!ts_node_is_null(object)) visit(object, scope);
      return;
    }
    if (is(target, "subscript")) return visit(target, scope);
    for (TSNode child : children(target)) visit_target(child, scope);
  }

  /// The expressions a value may evaluate to: both arms of `a if c else b`, both sides of `a or b`.
  void value_alternatives(TSNode value, std::vector<TSNode>& out, int depth = 0) const {
    if (ts_node_is_null(value) || depth > 16) return;
    if (is(value, "parenthesized_expression")) {
      for (TSNode child : children(value)) value_alternatives(child, out, depth + 1);
      return;
    }
    if (is(value, "conditional_expression")) {
      auto arms = children(value);  // consequence, condition, alternative
      if (arms.size() == 3) {
        value_alternatives(arms[0], out, depth + 1);
        value_alternatives(arms[2], out, depth + 1);
        return;
      }
    }
    if (is(value, "boolean_operator")) {
      value_alternatives(field(value, "left"), out, depth + 1);
      value_alternatives(field(value, "right"), out, depth + 1);
      return;
    }
    out.push_back(value);
  }

  /// One binding per alternative value; several bindings of one name are unioned by the resolver.
  std::vector<NameBinding> value_bindings(const std::string& name, TSNode value, int line) const {
    std::vector<TSNode> alternatives;
    value_alternatives(value, alternatives);
    std::vector<NameBinding> out;
    // An alternative the linker cannot follow is kept too: it binds no value, but it says the name
    // may hold something that is not a constant (`k = 1 if c else n + 1`; Resolver::constant_keys).
    for (TSNode alternative : alternatives) out.push_back(value_binding(name, alternative, line));
    if (out.empty()) out.push_back(value_binding(name, value, line));
    return out;
  }

  /// The literal module name of importlib.import_module("a.b") or pytest.importorskip("a.b").
  std::optional<std::string> module_imported_by(TSNode value) const {
    if (!is(value, "call")) return std::nullopt;
    auto callee = dotted_text(field(value, "function"));
    if (!callee || !(callee->ends_with("import_module") || callee->ends_with("importorskip"))) return std::nullopt;
    TSNode arguments = field(value, "arguments");
    if (ts_node_is_null(arguments) || ts_node_named_child_count(arguments) == 0) return std::nullopt;
    TSNode first = ts_node_named_child(arguments, 0);
    if (!is(first, "string")) return std::nullopt;
    std::string_view quoted = text(first);
    if (quoted.size() < 3 || (quoted.front() != '"' && quoted.front() != '\'')) return std::nullopt;
    std::string name(quoted.substr(1, quoted.size() - 2));
    bool dotted = std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    });
    if (!dotted || name.front() == '.') return std::nullopt;
    return name;
  }

  /// d["k"], table[0], mod.REGISTRY[name]: one element of a container (a slice is a container).
  bool is_element_read(TSNode value) const {
    if (!is(value, "subscript")) return false;
    TSNode index = field(value, "subscript");
    return !ts_node_is_null(index) && !is(index, "slice");
  }

  NameBinding value_binding(std::string name, TSNode value, int line) const {
    NameBinding binding;
    binding.name = std::move(name);
    binding.line = line;
    if (auto module = module_imported_by(value)) {
      // m = importlib.import_module("a.b") / pytest.importorskip("a.b"): as `import a.b as m`
      binding.kind = NameBinding::Kind::module_import;
      binding.target = binding.member = *module;
    } else if (is(value, "call")) {
      if (auto callee = dotted_text(field(value, "function"))) {
        binding.kind = NameBinding::Kind::call_result;
        binding.target = *callee;
        binding.member = argument_texts(field(value, "arguments"), 0);
      }
    } else if (is(value, "identifier") || is(value, "attribute") || is(value, "lambda") || is_element_read(value)) {
      // x = d["k"]: an alias of what d holds ("d[]"), so x() reaches every element d may hold.
      if (auto target = dotted_text(value)) {
        binding.kind = NameBinding::Kind::alias;
        binding.target = *target;
      }
    } else if (auto literal = literal_text(value)) {
      binding.target = *literal;  // still `other`: no value to the resolver, a constant to a key
    }
    return binding;
  }

  void bind_target(TSNode target, TSNode value, int scope) {
    if (is(target, "identifier")) {
      for (auto& binding : value_bindings(std::string(text(target)), value, line_of(target)))
        bind(scope, std::move(binding));
      bind_elements(std::string(text(target)) + "[]", value, scope, 0, std::string(text(target)));
      bind_slice(std::string(text(target)), value, scope);
      return;
    }
    if (is(target, "subscript")) {
      // xs[1:3] = ys: the elements after the slice move.
      TSNode index = field(target, "subscript");
      if (!ts_node_is_null(index) && is(index, "slice"))
        if (auto sliced = dotted_text(field(target, "value"))) note_rebound(*sliced);
      // d["k"] = f, table[0][1] = f: an element of a container a name holds.
      auto container = dotted_text(target);
      if (container && container->find_first_of(".(") == std::string::npos) {
        auto keyed = keyed_text(target);  // d["k"] = f: also the element under "k"
        std::vector<NameBinding> stored;
        for (auto& binding : value_bindings(*container, value, line_of(target)))
          push_element(std::move(binding), keyed.value_or(""), stored);
        for (auto& binding : stored) bind(scope, std::move(binding));
        bind_elements(*container + "[]", value, scope, 0, keyed.value_or(""));
      } else if (int owner = instance_owner(field(target, "value"), scope); owner >= 0) {
        // self.hooks["k"] = f: an element of the container an instance attribute holds.
        std::string held = std::string(text(field(field(target, "value"), "attribute"))) + "[]";
        for (auto& binding : value_bindings(held, value, line_of(target))) bind_instance(owner, std::move(binding), scope);
      }
      return;
    }
    if (is(target, "attribute")) {
      TSNode object = field(target, "object");
      TSNode attribute = field(target, "attribute");
      if (ts_node_is_null(object) || ts_node_is_null(attribute)) return;
      int owner = is(object, "identifier") ? instance_owner(target, scope) : -1;
      if (owner < 0) {
        note_rebound(text(attribute));  // mod.KEY = 2: another module's constant is no longer one
        return;
      }
      for (auto& binding : value_bindings(std::string(text(attribute)), value, line_of(target)))
        bind_instance(owner, std::move(binding), scope);
      // self.hooks = {"k": f}: what the attribute's container holds, as "hooks[]".
      std::vector<NameBinding> elements;
      element_bindings(std::string(text(attribute)) + "[]", value, 0, elements);
      for (auto& binding : elements) bind_instance(owner, std::move(binding), scope);
      return;
    }
    bool target_is_sequence = is(target, "pattern_list") || is(target, "tuple_pattern") ||
                              is(target, "list_pattern") || is(target, "tuple") || is(target, "list");
    bool value_is_sequence = is(value, "expression_list") || is(value, "tuple") || is(value, "list");
    if (target_is_sequence && value_is_sequence) {
      auto lefts = children(target);
      auto rights = children(value);
      if (lefts.size() == rights.size() && std::none_of(lefts.begin(), lefts.end(), [](TSNode n) {
            return is(n, "list_splat_pattern");
          })) {
        for (std::size_t i = 0; i < lefts.size(); ++i) bind_target(lefts[i], rights[i], scope);
        return;
      }
      if (bind_starred(lefts, rights, scope)) return;
    }
    bind_unknown_targets(target, scope);
  }

  /// `a, *rest, z = f, g, h, k`: the names before the starred one take values from the front,
  /// those after it from the back, and the starred name is a list of what is left (bound as its
  /// elements, "rest[]", the way a list literal's are). False when the shapes do not fit.
  bool bind_starred(const std::vector<TSNode>& lefts, const std::vector<TSNode>& rights, int scope) {
    auto star = std::find_if(lefts.begin(), lefts.end(), [](TSNode n) { return is(n, "list_splat_pattern"); });
    if (star == lefts.end() || std::count_if(lefts.begin(), lefts.end(), [](TSNode n) {
          return is(n, "list_splat_pattern");
        }) != 1)
      return false;
    if (std::any_of(rights.begin(), rights.end(), [](TSNode n) { return is(n, "list_splat") || is(n, "comment"); }))
      return false;
    std::size_t before = static_cast<std::size_t>(star - lefts.begin());
    std::size_t after = lefts.size() - before - 1;
    if (rights.size() < before + after) return false;
    for (std::size_t i = 0; i < before; ++i) bind_target(lefts[i], rights[i], scope);
    for (std::size_t i = 0; i < after; ++i) bind_target(lefts[before + 1 + i], rights[rights.size() - after + i], scope);
    TSNode name = ts_node_named_child(*star, 0);
    if (ts_node_is_null(name) || !is(name, "identifier")) return true;
    std::string list(text(name));
    bind(scope, {list, NameBinding::Kind::other, "", "", -1, line_of(name)});
    for (std::size_t i = before; i < rights.size() - after; ++i) {
      NameBinding element = value_binding(list + "[]", rights[i], line_of(rights[i]));
      if (element.kind != NameBinding::Kind::other) bind(scope, std::move(element));
    }
    return true;
  }

  /// `part = xs[1:3]`: a slice holds elements of the container it is cut from ("part[]" is an
  /// alias of "xs[]").
  void bind_slice(const std::string& name, TSNode value, int scope) {
    if (!is(value, "subscript")) return;
    TSNode index = field(value, "subscript");
    if (ts_node_is_null(index) || !is(index, "slice")) return;
    auto container = dotted_text(value);
    if (!container) return;
    NameBinding all{name + "[]", NameBinding::Kind::alias, *container, "", -1, line_of(value)};
    // ys = xs[1:3] of a plain name with literal bounds: ys[0] is xs[1] (kept to 16 positions; a
    // read past them reads every element).
    TSNode sliced = field(value, "value");
    auto bounds = literal_slice(index);
    if (bounds && !ts_node_is_null(sliced) && is(sliced, "identifier")) {
      const int count = std::min(bounds->second - bounds->first, 16);
      for (int k = 0; k < count; ++k)
        bind(scope, {keyed_element_name(name, "p:" + std::to_string(k)), NameBinding::Kind::alias,
                     keyed_element_name(text(sliced), "i:" + std::to_string(bounds->first + k)), "", -1,
                     line_of(value)});
      all.has_key = count > 0;
    }
    bind(scope, std::move(all));
  }

  /// The bounds of `a:b` where each is absent or a decimal literal and there is no step (an absent
  /// end is written as a large one).
  std::optional<std::pair<int, int>> literal_slice(TSNode slice) const {
    int part = 0;
    int bounds[2] = {0, 1 << 20};
    for (TSNode child : children(slice, false)) {
      if (!ts_node_is_named(child)) {
        if (text(child) == ":" && ++part > 1) return std::nullopt;  // a step
        continue;
      }
      if (is(child, "comment")) continue;
      auto key = constant_key(child);
      if (!key || !key->starts_with("i:") || key->size() > 8) return std::nullopt;
      bounds[part] = std::stoi(key->substr(2));
    }
    if (bounds[1] <= bounds[0]) return std::nullopt;
    return std::pair{bounds[0], bounds[1]};
  }

  /// `reqs.append(handle)`, `seen.add(x)`, `q.insert(0, x)`, `d.update({...})`: what a container a local name holds
  /// gains an element, bound under "reqs[]" as a literal's elements are, so `reqs[-1].wait()`
  /// resolves to what was appended (a library's value, say) instead of to nothing.
  void bind_added_element(TSNode function, TSNode arguments, int scope) {
    if (!is(function, "attribute")) return;
    TSNode object = field(function, "object");
    TSNode method = field(function, "attribute");
    if (ts_node_is_null(object) || ts_node_is_null(method)) return;
    // reqs.append(f) binds "reqs[]" in the scope; self.hooks.append(f) binds "hooks[]" on the instance.
    int owner = is(object, "identifier") ? -1 : instance_owner(object, scope);
    if (!is(object, "identifier") && owner < 0) return;
    const std::string held =
        std::string(owner < 0 ? text(object) : text(field(object, "attribute"))) + "[]";
    auto add = [&](NameBinding binding) {
      if (owner < 0) bind(scope, std::move(binding));
      else bind_instance(owner, std::move(binding), scope);
    };
    std::string_view name = text(method);
    auto values = children(arguments);
    if (name == "update" || name == "extend") {
      // d.update({"k": f}), xs.extend([f, g]): the literal's elements join the container's;
      // d.update(other), xs.extend(mod.HANDLERS): what the other container holds; d.update(k=f): f.
      std::vector<NameBinding> elements;
      argument_elements(held, arguments, 0, elements, owner < 0 && name == "update" ? std::string(text(object)) : "");
      for (auto& binding : elements) add(std::move(binding));
      return;
    }
    // d.setdefault("k", f) stores f as insert(i, f) does.
    std::size_t position = name == "insert" || name == "setdefault" ? 1 : 0;
    if (name != "append" && name != "add" && name != "appendleft" && name != "insert" && name != "setdefault") return;
    if (values.size() != position + 1) return;
    TSNode element = values[position];
    if (!is(element, "identifier") && !is(element, "attribute") && !is(element, "call") && !is(element, "lambda"))
      return;
    NameBinding binding = value_binding(held, element, line_of(element));
    if (binding.kind != NameBinding::Kind::other) add(std::move(binding));
  }

  /// Elements of a dict, list, tuple or set literal, bound under "name[]" (nested: "name[][]"), so
  /// that name[k]() reaches every function the container holds.
  void bind_elements(const std::string& name, TSNode value, int scope, int depth, const std::string& keyed = {}) {
    std::vector<NameBinding> elements;
    element_bindings(name, value, depth, elements, keyed);
    for (auto& binding : elements) bind(scope, std::move(binding));
  }

  /// The bindings bind_elements makes, collected (for containers held by instance attributes).
  /// `keyed`: the keyed name of the container ("d", "d[=s:a]") where its elements' constant keys
  /// are followed; a dict's element under a constant key is bound under "keyed[=key]" as well, a
  /// list's or tuple's under its position ("keyed[=p:0]"; `positions`: the literal is the whole
  /// container, not elements added to one).
  void element_bindings(const std::string& name, TSNode value, int depth, std::vector<NameBinding>& out,
                        const std::string& keyed = {}, bool positions = true) const {
    if (ts_node_is_null(value) || depth > 4) return;
    if (is(value, "call") && text(field(value, "function")) == "dict")
      return argument_elements(name, field(value, "arguments"), depth, out, keyed);
    if (is(value, "list_comprehension") || is(value, "set_comprehension") || is(value, "generator_expression") ||
        is(value, "dictionary_comprehension")) {
      // [DP(c) for c in chunks]: every element is what the body makes (no position or key is certain).
      TSNode body = field(value, "body");
      if (!ts_node_is_null(body) && is(body, "pair")) body = field(body, "value");
      if (ts_node_is_null(body)) return;
      if (is(body, "identifier") || is(body, "attribute") || is(body, "call") || is(body, "lambda"))
        push_element(value_binding(name, body, line_of(body)), "", out);
      else
        element_bindings(name + "[]", body, depth + 1, out, "", false);
      return;
    }
    bool container = is(value, "dictionary") || is(value, "list") || is(value, "tuple") || is(value, "set");
    if (!container) return;
    bool positional = positions && !keyed.empty() && (is(value, "list") || is(value, "tuple"));
    int position = 0;
    for (TSNode element : children(value)) {
      if (is(element, "comment")) continue;
      std::optional<std::string> key;
      if (is(element, "pair")) {
        if (!keyed.empty()) key = constant_key(field(element, "key"));
        element = field(element, "value");
      } else if (is(element, "list_splat") || is(element, "parenthesized_list_splat")) {
        positional = false;  // [*xs, f]: f's position depends on xs
      } else if (positional) {
        key = "p:" + std::to_string(position++);
      }
      if (ts_node_is_null(element)) continue;
      if (is(element, "identifier") || is(element, "attribute") || is(element, "call") || is(element, "lambda")) {
        push_element(value_binding(name, element, line_of(element)), key ? keyed_element_name(keyed, *key) : "", out);
      } else {
        element_bindings(name + "[]", element, depth + 1, out, key ? keyed_element_name(keyed, *key) : "");
      }
    }
  }

  /// An element binding (none where its value is not followed), with its keyed twin where
  /// `keyed_name` is one.
  static void push_element(NameBinding binding, const std::string& keyed_name, std::vector<NameBinding>& out) {
    if (binding.kind == NameBinding::Kind::other) return;
    if (!keyed_name.empty()) {
      NameBinding twin = binding;
      twin.name = keyed_name;
      binding.has_key = true;
      out.push_back(std::move(twin));
    }
    out.push_back(std::move(binding));
  }

  /// What the arguments of `dict(...)`, `d.update(...)` or `xs.extend(...)` put in the container: a
  /// keyword's value (`k=f`), another container's elements (`other`, `mod.HANDLERS`), a literal's.
  void argument_elements(const std::string& name, TSNode arguments, int depth, std::vector<NameBinding>& out,
                         const std::string& keyed = {}) const {
    for (TSNode argument : children(arguments)) {
      if (is(argument, "keyword_argument")) {
        TSNode kept = field(argument, "value");
        TSNode key = field(argument, "name");
        if (ts_node_is_null(kept)) continue;
        std::string keyed_name;
        if (!keyed.empty() && !ts_node_is_null(key))
          if (auto constant = string_key(text(key))) keyed_name = keyed_element_name(keyed, *constant);
        push_element(value_binding(name, kept, line_of(kept)), keyed_name, out);
      } else if (is(argument, "identifier") || is(argument, "attribute")) {
        if (auto other = dotted_text(argument))
          out.push_back({name, NameBinding::Kind::alias, *other + "[]", "", -1, line_of(argument)});
      } else {
        element_bindings(name, argument, depth, out, keyed, false);
      }
    }
  }

  /// The class whose instances `self.x` (an attribute node) is read on, or -1.
  int instance_owner(TSNode attribute, int scope) const {
    if (!is(attribute, "attribute")) return -1;
    TSNode object = field(attribute, "object");
    if (ts_node_is_null(object) || !is(object, "identifier")) return -1;
    int owner = self_class(scope, text(object));
    return owner >= 0 ? owner : enclosing_class_named(scope, text(object));
  }

  /// A binding of an instance attribute, evaluated in the method that makes it.
  void bind_instance(int owner, NameBinding binding, int scope) {
    binding.scope = scope;
    record_.scopes[owner].instance_attributes.push_back(std::move(binding));
  }

  /// Names assigned something the linker cannot follow: they shadow outer bindings.
  void bind_unknown_targets(TSNode target, int scope) {
    if (is(target, "identifier")) {
      NameBinding binding;
      binding.name = std::string(text(target));
      binding.kind = NameBinding::Kind::other;
      binding.line = line_of(target);
      bind(scope, std::move(binding));
      return;
    }
    if (is(target, "attribute") || is(target, "subscript")) return;
    for (TSNode child : children(target)) bind_unknown_targets(child, scope);
  }

  /// Assignments pytest reads: pytestmark, world_size, __test__, and module constants that
  /// parametrize may name.
  void special_assignment(TSNode target, TSNode value, int scope) {
    if (!is(target, "identifier")) return;
    std::string_view name = text(target);
    Scope& s = record_.scopes[scope];
    if (s.kind == Scope::Kind::module) constants_[std::string(name)] = value;
    if (s.kind == Scope::Kind::module && name == "__all__") read_all(value);
    if (s.kind == Scope::Kind::function) return;
    if (name == "pytestmark") {
      std::vector<TSNode> items = (is(value, "list") || is(value, "tuple")) ? children(value)
                                                                           : std::vector<TSNode>{value};
      for (TSNode item : items)
        if (auto mark = read_mark(item)) s.marks.push_back(std::move(*mark));
    } else if (s.kind == Scope::Kind::class_ && name == "world_size") {
      std::vector<TSNode> items = (is(value, "list") || is(value, "tuple")) ? children(value)
                                                                           : std::vector<TSNode>{value};
      for (TSNode item : items)
        if (is(item, "integer"))
          if (auto v = python_int_str(text(item)); v && v->size() < 9) s.world_sizes.push_back(std::stoi(*v));
    } else if (s.kind == Scope::Kind::class_ && name == "__test__" && is(value, "false")) {
      s.not_a_test = true;
    }
  }

  // ---- imports --------------------------------------------------------------------------------

  void note_import(const std::string& module) {
    auto& imports = record_.facts.imported_modules;
    if (std::find(imports.begin(), imports.end(), module) == imports.end()) imports.push_back(module);
  }

  void import_statement(TSNode node, int scope) {
    for (TSNode child : children(node)) {
      NameBinding binding;
      binding.kind = NameBinding::Kind::module_import;
      binding.line = line_of(child);
      if (is(child, "dotted_name")) {
        std::string module(text(child));
        binding.name = module.substr(0, module.find('.'));
        binding.target = binding.name;
        binding.member = module;
        note_import(module);
      } else if (is(child, "aliased_import")) {
        TSNode name = field(child, "name"), alias = field(child, "alias");
        if (ts_node_is_null(name) || ts_node_is_null(alias)) continue;
        binding.name = std::string(text(alias));
        binding.target = binding.member = std::string(text(name));
        note_import(binding.target);
      } else {
        continue;
      }
      binding_range_ = child;
      CertainBindings certain(*this, node, scope);
      bind(scope, std::move(binding));
      binding_range_ = TSNode{};
    }
  }

  /// Absolute module of `from <prefix> import`, with relative levels resolved against this file.
  std::optional<std::string> from_module(TSNode module_node) const {
    if (is(module_node, "dotted_name")) return std::string(text(module_node));
    if (!is(module_node, "relative_import")) return std::nullopt;
    std::string_view raw = text(module_node);
    std::size_t level = 0;
    while (level < raw.size() && raw[level] == '.') ++level;
    std::string rest;
    for (TSNode child : children(module_node))
      if (is(child, "dotted_name")) rest = std::string(text(child));
    std::vector<std::string> package;
    std::string name = record_.module_name;
    std::size_t start = 0;
    while (start <= name.size()) {
      std::size_t dot = name.find('.', start);
      if (dot == std::string::npos) dot = name.size();
      package.push_back(name.substr(start, dot - start));
      start = dot + 1;
    }
    if (!record_.is_package && !package.empty()) package.pop_back();
    for (std::size_t i = 1; i < level; ++i) {
      if (package.empty()) return std::nullopt;
      package.pop_back();
    }
    std::string out;
    for (const auto& part : package) out += (out.empty() ? "" : ".") + part;
    if (!rest.empty()) out += (out.empty() ? "" : ".") + rest;
    return out;
  }

  void import_from(TSNode node, int scope) {
    TSNode module_node = field(node, "module_name");
    if (ts_node_is_null(module_node)) return;
    auto module = from_module(module_node);
    if (!module) {
      record_.facts.diagnostics.push_back({Diagnostic::Severity::warning, path_, line_of(node),
                                           "relative import goes above the repository root"});
      return;
    }
    if (!module->empty()) note_import(*module);
    for (TSNode child : children(node)) {
      if (ts_node_eq(child, module_node)) continue;
      NameBinding binding;
      binding.kind = NameBinding::Kind::from_import;
      binding.target = *module;
      binding.line = line_of(child);
      if (is(child, "wildcard_import")) {
        binding.kind = NameBinding::Kind::star_import;
      } else if (is(child, "dotted_name")) {
        binding.member = binding.name = std::string(text(child));
      } else if (is(child, "aliased_import")) {
        TSNode name = field(child, "name"), alias = field(child, "alias");
        if (ts_node_is_null(name) || ts_node_is_null(alias)) continue;
        binding.member = std::string(text(name));
        binding.name = std::string(text(alias));
      } else {
        continue;
      }
      if (!binding.member.empty()) note_import((module->empty() ? "" : *module + ".") + binding.member);
      binding_range_ = child;
      CertainBindings certain(*this, node, scope);
      bind(scope, std::move(binding));
      binding_range_ = TSNode{};
    }
  }

  // ---- definitions ----------------------------------------------------------------------------

  void decorated(TSNode node, int scope) {
    std::vector<TSNode> decorators;
    for (TSNode child : children(node))
      if (is(child, "decorator")) decorators.push_back(child);
    TSNode definition = field(node, "definition");
    if (ts_node_is_null(definition)) return;
    if (is(definition, "function_definition")) define_function(definition, scope, decorators, node);
    else if (is(definition, "class_definition")) define_class(definition, scope, decorators, node);
  }

  void define_function(TSNode node, int scope, const std::vector<TSNode>& decorators, TSNode outer) {
    TSNode name_node = field(node, "name");
    if (ts_node_is_null(name_node)) return;
    std::string name(text(name_node));
    int index = add_scope(Scope::Kind::function, child_name(scope, name), name, scope, node, outer);
    NameBinding binding;
    binding.name = name;
    binding.kind = NameBinding::Kind::definition;
    binding.scope = index;
    binding.line = line_of(node);
    {
      CertainBindings certain(*this, outer, scope);
      bind(scope, std::move(binding));
    }
    if (record_.scopes[scope].kind == Scope::Kind::class_ && (name == "__init__" || name == "__new__"))
      record_.scopes[scope].defines_init = true;
    std::vector<Mark> marks;
    {
      DefinitionReads reads(*this, index);
      apply_decorators(decorators, scope, index, marks);
      TSNode parameters = field(node, "parameters");
      if (!ts_node_is_null(parameters)) read_parameters(parameters, scope, index);
      TSNode return_type = field(node, "return_type");
      if (!ts_node_is_null(return_type)) visit(return_type, scope);
    }
    record_.scopes[index].marks = std::move(marks);
    TSNode body = field(node, "body");
    std::size_t first_reference = record_.references.size();
    if (!ts_node_is_null(body)) visit_block(body, index);
    hoist_container_stores(index);
    drop_local_reads(index, first_reference);
  }

  /// `d[key] = f` (or d.append(f)) in a function where d is no local: the store goes into the
  /// module's container, so its element bindings ("d[]") move to the module, still evaluated in
  /// the function. Names an enclosing function binds stay where they are.
  void hoist_container_stores(int function) {
    auto& bindings = record_.scopes[function].bindings;
    auto is_local = [&](std::string_view base) {
      for (const auto& b : bindings)
        if (b.name == base) return true;
      return false;
    };
    auto enclosing_binds = [&](std::string_view base) {
      for (int s = record_.scopes[function].parent; s > 0; s = record_.scopes[s].parent)
        if (record_.scopes[s].kind == Scope::Kind::function)
          for (const auto& b : record_.scopes[s].bindings)
            if (b.name == base) return true;
      return false;
    };
    std::vector<bool> hoist(bindings.size(), false);
    bool any = false;
    for (std::size_t i = 0; i < bindings.size(); ++i) {
      const auto& b = bindings[i];
      std::size_t bracket = b.name.find('[');
      if (bracket == std::string::npos || bracket == 0 || b.kind == NameBinding::Kind::parameter) continue;
      std::string_view base = std::string_view(b.name).substr(0, bracket);
      hoist[i] = !is_local(base) && !enclosing_binds(base);
      any |= hoist[i];
    }
    if (!any) return;
    std::vector<NameBinding> kept;
    for (std::size_t i = 0; i < bindings.size(); ++i) {
      if (!hoist[i]) {
        kept.push_back(std::move(bindings[i]));
        continue;
      }
      bindings[i].scope = function;
      bindings[i].statement_first = bindings[i].statement_last = 0;  // made when the function runs
      record_.scopes[0].bindings.push_back(std::move(bindings[i]));
    }
    bindings = std::move(kept);
  }

  void read_parameters(TSNode parameters, int outer, int index) {
    for (TSNode parameter : children(parameters)) {
      std::string name;
      std::string annotation;  // a class named by the parameter's annotation, if any
      std::string default_value;  // dotted text of its default, if any
      bool required = false;
      if (is(parameter, "identifier")) {
        name = text(parameter);
        required = true;
      } else if (is(parameter, "typed_parameter")) {
        annotation = annotated_class(field(parameter, "type"));
        TSNode first = ts_node_named_child(parameter, 0);
        if (!ts_node_is_null(first) && is(first, "identifier")) {
          name = text(first);
          required = true;
        } else if (!ts_node_is_null(first)) {
          TSNode inner = ts_node_named_child(first, 0);
          if (!ts_node_is_null(inner)) name = text(inner);
        }
      } else if (is(parameter, "default_parameter") || is(parameter, "typed_default_parameter")) {
        TSNode n = field(parameter, "name");
        if (!ts_node_is_null(n)) name = text(n);
        if (is(parameter, "typed_default_parameter")) annotation = annotated_class(field(parameter, "type"));
        TSNode value = field(parameter, "value");
        if (!ts_node_is_null(value)) {
          visit(value, outer);
          default_value = argument_text(value, 0, true).value_or("");
        }
      } else if (is(parameter, "list_splat_pattern") || is(parameter, "dictionary_splat_pattern")) {
        TSNode inner = ts_node_named_child(parameter, 0);
        if (!ts_node_is_null(inner)) name = text(inner);
        NameBinding binding{name, NameBinding::Kind::parameter, "", "", -1, line_of(parameter)};
        if (!name.empty()) bind(index, std::move(binding));
        continue;
      }
      if (name.empty()) continue;
      Scope& s = record_.scopes[index];
      s.parameters.push_back(name);
      if (required) s.required_parameters.push_back(name);
      bind(index, {name, NameBinding::Kind::parameter, annotation, default_value, -1, line_of(parameter)});
    }
  }

  void define_class(TSNode node, int scope, const std::vector<TSNode>& decorators, TSNode outer) {
    TSNode name_node = field(node, "name");
    if (ts_node_is_null(name_node)) return;
    std::string name(text(name_node));
    int index = add_scope(Scope::Kind::class_, child_name(scope, name), name, scope, node, outer);
    {
      CertainBindings certain(*this, outer, scope);
      bind(scope, {name, NameBinding::Kind::definition, "", "", index, line_of(node)});
    }
    DefinitionReads reads(*this, index);
    TSNode superclasses = field(node, "superclasses");
    if (!ts_node_is_null(superclasses)) {
      for (TSNode base : children(superclasses)) {
        if (is(base, "keyword_argument")) record_.scopes[index].build_hooks = true;
        else {
          auto base_text = dotted_text(base);
          record_.scopes[index].bases.push_back(base_text ? *base_text
                                                          : "<" + compact(text(base), kMaxCalleeText) + ">");
        }
        visit(base, scope);
      }
    }
    if (!decorators.empty()) record_.scopes[index].build_hooks = true;
    std::vector<Mark> decorator_marks;
    apply_decorators(decorators, scope, index, decorator_marks);
    definition_owner_ = reads.saved;
    TSNode body = field(node, "body");
    if (!ts_node_is_null(body)) visit_block(body, index);
    // pytest appends decorator marks after the class body's own pytestmark.
    auto& marks = record_.scopes[index].marks;
    marks.insert(marks.end(), decorator_marks.begin(), decorator_marks.end());
  }

  /// Decorators run in the enclosing scope at definition time; the one closest to the definition
  /// applies first, which is also pytest's mark order.
  void apply_decorators(const std::vector<TSNode>& decorators, int scope, int decorated,
                        std::vector<Mark>& marks) {
    // The decorated name is bound to what the decorators return, applied innermost first, to the
    // function itself (written "@<scope index>", which no source text can be).
    const std::string& name = record_.scopes[decorated].name;
    std::string applied = "@" + std::to_string(decorated);
    bool rebound = false;
    for (auto it = decorators.rbegin(); it != decorators.rend(); ++it) {
      TSNode expression = ts_node_named_child(*it, 0);
      if (ts_node_is_null(expression)) continue;
      TSNode callee = is(expression, "call") ? field(expression, "function") : expression;
      TSNode arguments = is(expression, "call") ? field(expression, "arguments") : TSNode{};
      auto callee_text = ts_node_is_null(callee) ? std::nullopt : dotted_text(callee);
      if (callee_text) {
        const std::string& t = *callee_text;
        if (auto mark = read_mark(expression)) {
          marks.push_back(std::move(*mark));
          if (!ts_node_is_null(arguments)) visit(arguments, scope);
          continue;
        }
        Scope& s = record_.scopes[decorated];
        if (t == "staticmethod" || t == "classmethod" || t == "property") {
          // Builtin descriptors: they change how the function is called, they call nothing.
          s.is_staticmethod |= t == "staticmethod";
          s.is_classmethod |= t == "classmethod";
          continue;
        }
        if (t == "pytest.fixture" || t == "fixture" || t == "pytest.yield_fixture") {
          s.is_fixture = true;
          s.fixture_name = s.name;
          if (!ts_node_is_null(arguments)) read_fixture_arguments(arguments, s);
        }
      }
      // @factory(args): the factory is called, then what it returns is applied to the function.
      auto decorator_text = dotted_text(expression);
      RawReference reference;
      reference.scope = scope;
      reference.kind = EdgeKind::decorates;
      reference.line = line_of(*it);
      reference.text = decorator_text ? *decorator_text
                                      : "<" + compact(text(expression), kMaxCalleeText) + ">";
      reference.decorated = decorated;
      if (decorator_text) reference.arguments = {applied};
      record_.references.push_back(std::move(reference));
      if (is(expression, "call")) {
        call(expression, scope);
      } else if (callee_text && !ts_node_is_null(callee) && !is(callee, "identifier")) {
        visit(callee, scope);
      }
      if (decorator_text && applied.size() < 4 * kMaxCalleeText) {
        applied = *decorator_text + "(" + applied + ")";
        rebound = true;
      }
    }
    if (rebound) bind(scope, {name, NameBinding::Kind::alias, applied, "@decorated", -1, record_.scopes[decorated].line});
  }

  void read_fixture_arguments(TSNode arguments, Scope& scope) {
    for (TSNode argument : children(arguments)) {
      if (!is(argument, "keyword_argument")) continue;
      std::string_view key = text(field(argument, "name"));
      TSNode value = field(argument, "value");
      if (ts_node_is_null(value)) continue;
      if (key == "name" && is(value, "string")) {
        if (auto name = string_literal_value(text(value))) scope.fixture_name = *name;
      } else if (key == "autouse") {
        scope.fixture_autouse = is(value, "true");
      }
    }
  }

  // ---- pytest marks ---------------------------------------------------------------------------

  /// `pytest.mark.NAME` or `pytest.mark.NAME(...)` (also `mark.NAME` after `from pytest import mark`).
  std::optional<Mark> read_mark(TSNode expression) {
    TSNode callee = is(expression, "call") ? field(expression, "function") : expression;
    if (ts_node_is_null(callee)) return std::nullopt;
    auto callee_text = dotted_text(callee);
    if (!callee_text) return std::nullopt;
    std::string name;
    for (const char* prefix : {"pytest.mark.", "mark."}) {
      if (callee_text->rfind(prefix, 0) == 0) {
        name = callee_text->substr(std::strlen(prefix));
        break;
      }
    }
    if (name.empty() || name.find_first_of(".()[]") != std::string::npos) return std::nullopt;
    Mark mark;
    mark.name = name;
    mark.line = line_of(expression);
    if (!is(expression, "call")) return mark;
    TSNode arguments = field(expression, "arguments");
    if (ts_node_is_null(arguments)) return mark;
    for (TSNode argument : children(arguments)) {
      if (is(argument, "string")) {
        if (auto value = string_literal_value(text(argument))) mark.string_args.push_back(*value);
      } else if (is(argument, "integer")) {
        if (auto value = python_int_str(text(argument)); value && value->size() < 9)
          mark.int_args.push_back(std::stoi(*value));
      }
    }
    if (name == "parametrize") mark.parametrize = read_parametrize(arguments, mark.line);
    return mark;
  }

  /// Follows a module-level name to the literal it was assigned (parametrize value tables).
  TSNode follow_constant(TSNode node, int hops = 0) const {
    while (hops++ < 4 && is(node, "identifier")) {
      auto it = constants_.find(std::string(text(node)));
      if (it == constants_.end()) break;
      node = it->second;
    }
    return node;
  }

  Parametrize read_parametrize(TSNode arguments, int line) {
    Parametrize p;
    p.line = line;
    TSNode argnames{}, argvalues{}, ids{};
    int position = 0;
    for (TSNode argument : children(arguments)) {
      if (is(argument, "keyword_argument")) {
        std::string_view key = text(field(argument, "name"));
        TSNode value = field(argument, "value");
        if (key == "argnames") argnames = value;
        else if (key == "argvalues") argvalues = value;
        else if (key == "ids") ids = value;
        else if (key == "indirect") p.indirect = !ts_node_is_null(value) && !is(value, "false");
        continue;
      }
      if (position == 0) argnames = argument;
      else if (position == 1) argvalues = argument;
      ++position;
    }
    if (ts_node_is_null(argnames) || ts_node_is_null(argvalues)) {
      p.is_static = false;
      return p;
    }
    argnames = follow_constant(argnames);
    if (is(argnames, "string")) {
      auto names = string_literal_value(text(argnames));
      if (!names) p.is_static = false;
      else {
        std::size_t start = 0;
        while (start <= names->size()) {
          std::size_t comma = names->find(',', start);
          if (comma == std::string::npos) comma = names->size();
          std::string part = names->substr(start, comma - start);
          auto b = part.find_first_not_of(" \t"), e = part.find_last_not_of(" \t");
          if (b != std::string::npos) p.argnames.push_back(part.substr(b, e - b + 1));
          start = comma + 1;
        }
      }
    } else if (is(argnames, "list") || is(argnames, "tuple")) {
      for (TSNode item : children(argnames)) {
        auto value = is(item, "string") ? string_literal_value(text(item)) : std::nullopt;
        if (!value) p.is_static = false;
        else p.argnames.push_back(*value);
      }
    } else {
      p.is_static = false;
    }
    argvalues = follow_constant(argvalues);
    if (!(is(argvalues, "list") || is(argvalues, "tuple"))) {
      p.is_static = false;
      return p;
    }
    for (TSNode item : children(argvalues)) {
      if (is(item, "comment")) continue;
      p.sets.push_back(read_parameter_set(item, p));
    }
    if (!ts_node_is_null(ids)) read_ids(follow_constant(ids), p);
    return p;
  }

  ParameterSet read_parameter_set(TSNode item, Parametrize& p) {
    ParameterSet set;
    std::vector<TSNode> values;
    bool is_param = false;
    if (is(item, "call")) {
      auto callee = dotted_text(field(item, "function"));
      is_param = callee && (*callee == "pytest.param" || *callee == "param");
    }
    if (is_param) {
      TSNode arguments = field(item, "arguments");
      if (!ts_node_is_null(arguments)) {
        for (TSNode argument : children(arguments)) {
          if (is(argument, "keyword_argument")) {
            if (text(field(argument, "name")) == "id") {
              TSNode value = field(argument, "value");
              if (is(value, "none")) continue;
              auto id = is(value, "string") ? string_literal_value(text(value)) : std::nullopt;
              if (!id) p.is_static = false;
              else set.id = pytest_ascii_escaped(*id);
            }
            continue;
          }
          if (is(argument, "list_splat") || is(argument, "dictionary_splat")) p.is_static = false;
          values.push_back(argument);
        }
      }
    } else if (p.argnames.size() == 1) {
      values.push_back(item);
    } else {
      TSNode tuple = follow_constant(item);
      if (is(tuple, "tuple") || is(tuple, "list")) values = children(tuple);
      else p.is_static = false;
    }
    if (p.is_static && values.size() != p.argnames.size()) p.is_static = false;
    for (TSNode value : values) {
      set.values.push_back(compact(text(value), 200));
      ValueId id = value_id(value);
      if (!id.is_static) p.is_static = false;
      set.value_ids.push_back(id.id);
    }
    return set;
  }

  void read_ids(TSNode ids, Parametrize& p) {
    if (!(is(ids, "list") || is(ids, "tuple"))) {
      // ids=str formats each value with str(), the same as pytest's own rule for the values a
      // literal can be; any other callable is not known here.
      if (is(ids, "identifier") && text(ids) == "str") {
        for (const auto& set : p.sets)
          for (const auto& id : set.value_ids)
            if (!id) p.is_static = false;
      } else {
        p.is_static = false;
      }
      return;
    }
    for (TSNode item : children(ids)) {
      if (is(item, "none")) {
        p.ids.push_back(std::nullopt);
        continue;
      }
      ValueId id = value_id(item);
      if (!id.is_static || !id.id) {
        p.is_static = false;
        p.ids.push_back(std::nullopt);
      } else {
        p.ids.push_back(id.id);
      }
    }
  }

  /// pytest's id for one literal value (str/bytes/int/float/bool/None/__name__ holders).
  ValueId value_id(TSNode value, int depth = 0) const {
    if (depth > 4) return {true, std::nullopt};
    if (is(value, "string")) {
      if (is_bytes_literal(text(value))) {
        auto bytes = string_literal_value(text(value));
        if (!bytes) return {false, std::nullopt};
        if (bytes->size() > 100) return {true, std::nullopt};
        return {true, pytest_ascii_escaped_bytes(*bytes)};
      }
      auto string = string_literal_value(text(value));
      if (!string) return {false, std::nullopt};
      if (utf8_length(*string) > 100) return {true, std::nullopt};
      return {true, pytest_ascii_escaped(*string)};
    }
    if (is(value, "concatenated_string")) {
      std::string joined;
      for (TSNode part : children(value)) {
        auto s = is(part, "string") ? string_literal_value(text(part)) : std::nullopt;
        if (!s || is_bytes_literal(text(part))) return {false, std::nullopt};
        joined += *s;
      }
      if (utf8_length(joined) > 100) return {true, std::nullopt};
      return {true, pytest_ascii_escaped(joined)};
    }
    if (is(value, "integer")) {
      auto v = python_int_str(text(value));
      return {v.has_value(), v};
    }
    if (is(value, "float")) {
      std::string_view t = text(value);
      if (!t.empty() && (t.back() == 'j' || t.back() == 'J')) return {false, std::nullopt};
      auto v = python_float_repr(t);
      return {v.has_value(), v};
    }
    if (is(value, "true")) return {true, "True"};
    if (is(value, "false")) return {true, "False"};
    if (is(value, "none")) return {true, "None"};
    if (is(value, "unary_operator")) {
      TSNode operand = field(value, "argument");
      std::string_view op = text(value).substr(0, 1);
      if (ts_node_is_null(operand) || !(is(operand, "integer") || is(operand, "float")))
        return {true, std::nullopt};
      ValueId inner = value_id(operand, depth + 1);
      if (!inner.id) return inner;
      if (op == "+") return inner;
      if (op != "-") return {false, std::nullopt};
      if (is(operand, "integer") && *inner.id == "0") return inner;
      return {true, "-" + *inner.id};
    }
    if (is(value, "lambda")) return {true, "<lambda>"};
    if (is(value, "parenthesized_expression") && ts_node_named_child_count(value) == 1)
      return value_id(ts_node_named_child(value, 0), depth + 1);
    if (is(value, "identifier")) {
      std::string name(text(value));
      static const std::unordered_set<std::string> kBuiltinTypes = {
          "int", "float", "str", "bool", "bytes", "list", "dict", "tuple", "set", "frozenset",
          "object", "complex", "type", "bytearray", "range", "len", "print", "max", "min", "sum",
          "abs", "sorted"};
      if (kBuiltinTypes.count(name)) return {true, name};
      for (const auto& binding : record_.scopes[0].bindings)
        if (binding.name == name && binding.kind == NameBinding::Kind::definition) return {true, name};
      TSNode constant = follow_constant(value);
      if (!ts_node_eq(constant, value)) return value_id(constant, depth + 1);
      return {true, std::nullopt};
    }
    return {true, std::nullopt};
  }

  static std::size_t utf8_length(std::string_view s) {
    std::size_t n = 0;
    for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
  }

  std::string path_;
  std::string_view source_;
  ModuleRecord& record_;
  std::vector<std::pair<uint32_t, uint32_t>> tokens_;
  std::vector<std::pair<uint32_t, uint32_t>> docs_;  ///< bare strings (docstrings), in order
  std::string buffer_;
  std::vector<TSNode> ranges_;
  std::vector<std::vector<int>> children_;  ///< scope -> the scopes defined directly in it
  std::vector<std::unordered_map<std::string, int>> duplicate_counts_;
  std::unordered_map<std::string, TSNode> constants_;
  int depth_ = 0;
  bool depth_warned_ = false;
  std::unordered_map<int, std::unordered_set<std::string>> globals_;  ///< scope -> names declared `global` there
  TSNode statement_{};                 ///< the module- or class-level statement being read, if any
  TSNode binding_range_{};             ///< an import's own name node, narrower than its statement
  TSNode body_statement_{};            ///< the statement of a scope's own body being read (visit_block)
  int body_scope_ = -1;                ///< the scope whose body that is
  bool comprehension_target_ = false;  ///< binding a comprehension's variables (bind_loop_target)
  int certain_first_ = 0;              ///< lines of the statement whose bindings are certain (CertainBindings)
  int certain_last_ = 0;
  bool keyed_texts_ = false;           ///< dotted_text writes constant subscript keys (call references)
  std::unordered_set<std::string> rebound_seen_;  ///< record_.rebound_names, as a set
  bool annotated_statement_ = false;   ///< the statement is an annotated assignment (a field)
  std::vector<int> statement_variables_;  ///< variables the current statement binds
  int definition_owner_ = -1;          ///< scope whose header is being evaluated
  std::vector<Symbol> variable_symbols_;
  std::unordered_map<int, std::vector<int>> scope_variables_;  ///< scope -> its variables, in order
  std::vector<std::pair<uint32_t, uint32_t>> variable_ranges_;
  std::vector<bool> variable_annotated_;
  std::unordered_map<int, std::unordered_map<std::string, int>> variable_counts_;
  std::unordered_set<std::string> reads_seen_;
  /// What the module's `__all__` is so far: not defined, literal names (all_names_), or unknown.
  enum class AllState { none, literal, dynamic };
  AllState all_state_ = AllState::none;
  std::vector<std::string> all_names_;
  std::unordered_map<uint32_t, int> lambda_scopes_;  ///< a lambda's first byte -> its scope
  std::unordered_map<int, int> lambda_counts_;       ///< scope -> lambdas named in it so far
};

/// Up to a few syntax errors with their lines: MISSING nodes say what was expected.
void report_syntax_errors(TSNode root, std::string_view path, std::string_view source,
                          std::vector<Diagnostic>& diagnostics) {
  constexpr int kMaxReported = 5;
  int reported = 0;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  bool descend = true;
  while (reported < kMaxReported) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    bool entered = false;
    if (descend) {
      if (ts_node_is_missing(node)) {
        diagnostics.push_back({Diagnostic::Severity::error, std::string(path), line_of(node),
                               std::string("syntax error: expected '") + ts_node_type(node) + "'"});
        ++reported;
      } else if (is(node, "ERROR")) {
        uint32_t start = std::min<uint32_t>(ts_node_start_byte(node), source.size());
        uint32_t end = std::min<uint32_t>(ts_node_end_byte(node), source.size());
        diagnostics.push_back({Diagnostic::Severity::error, std::string(path), line_of(node),
                               "syntax error: cannot parse '" +
                                   compact(source.substr(start, end - start), 40) +
                                   "' (expected a statement or expression)"});
        ++reported;
      } else if (ts_node_has_error(node)) {
        entered = ts_tree_cursor_goto_first_child(&cursor);
      }
    }
    if (entered) {
      descend = true;
      continue;
    }
    if (ts_tree_cursor_goto_next_sibling(&cursor)) {
      descend = true;
      continue;
    }
    if (!ts_tree_cursor_goto_parent(&cursor)) break;
    descend = false;
  }
  ts_tree_cursor_delete(&cursor);
}

}  // namespace

namespace {
struct ParserDeleter {
  void operator()(TSParser* parser) const { ts_parser_delete(parser); }
};
}  // namespace

TSParser* thread_parser() {
  thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
    std::unique_ptr<TSParser, ParserDeleter> p(ts_parser_new());
    ts_parser_set_language(p.get(), tree_sitter_python());
    return p;
  }();
  return parser.get();
}

TSFieldId field_id(std::string_view name) {
  static const std::unordered_map<std::string_view, TSFieldId> kIds = [] {
    std::unordered_map<std::string_view, TSFieldId> ids;
    const TSLanguage* language = tree_sitter_python();
    for (TSFieldId id = 1; id <= ts_language_field_count(language); ++id)
      if (const char* field = ts_language_field_name_for_id(language, id)) ids.emplace(field, id);
    return ids;
  }();
  auto it = kIds.find(name);
  return it == kIds.end() ? 0 : it->second;
}

namespace {

/// Gives back what the record's lists grew past their size: a whole repository's records are alive
/// together while it is linked, and growth by doubling leaves a third of them unused.
void fit_to_size(ModuleRecord& record) {
  record.references.shrink_to_fit();
  record.scopes.shrink_to_fit();
  for (auto& scope : record.scopes) {
    scope.bindings.shrink_to_fit();
    scope.instance_attributes.shrink_to_fit();
  }
  record.variables.shrink_to_fit();
  record.facts.symbols.shrink_to_fit();
  record.facts.edges.shrink_to_fit();
}

}  // namespace

ModuleRecord parse_module(std::string_view path, std::string_view source) {
  ModuleRecord record;
  record.facts.path = std::string(path);
  record.facts.language = Language::python;
  record.facts.content_hash = util::content_hash(source);
  record.module_name = module_name_for_path(path);
  std::string_view base = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  record.is_package = base == "__init__.py" || base == "__init__.pyi";
  ModuleParser parser(path, source, record);

  std::size_t nul = source.find('\0');
  if (nul != std::string_view::npos) {
    record.facts.parsed = false;
    record.facts.diagnostics.push_back({Diagnostic::Severity::error, std::string(path), line_at(source, nul),
                                        "not a Python source file: NUL byte at offset " +
                                            std::to_string(nul) + " (binary file?)"});
    parser.run_without_tree();
    return record;
  }
  if (source.size() >= UINT32_MAX / 2) {
    record.facts.parsed = false;
    record.facts.diagnostics.push_back({Diagnostic::Severity::error, std::string(path), 0,
                                        "file too large to parse (" + std::to_string(source.size()) + " bytes)"});
    parser.run_without_tree();
    return record;
  }
  std::size_t invalid = first_invalid_utf8(source);
  if (invalid != std::string_view::npos) {
    std::string encoding = declared_encoding(source);
    if (encoding.empty()) {
      // Python itself refuses such a module (SyntaxError: Non-UTF-8 code), so importers must be treated
      // as unknown; the facts below are kept only to name what the file defined.
      record.facts.parsed = false;
      record.facts.diagnostics.push_back({Diagnostic::Severity::error, std::string(path), line_at(source, invalid),
                                          "invalid UTF-8 byte at offset " + std::to_string(invalid) +
                                              " and no PEP 263 coding declaration; expected UTF-8 source"});
    } else {
      record.facts.diagnostics.push_back({Diagnostic::Severity::warning, std::string(path), line_at(source, invalid),
                                          "declared encoding " + encoding +
                                              " is read byte-wise; names are exact only where they are ASCII"});
    }
  }

  TSParser* ts_parser = thread_parser();
  ts_parser_reset(ts_parser);
  TSTree* tree = ts_parser_parse_string(ts_parser, nullptr, source.data(), static_cast<uint32_t>(source.size()));
  if (tree == nullptr) {
    record.facts.parsed = false;
    record.facts.diagnostics.push_back({Diagnostic::Severity::error, std::string(path), 0, "tree-sitter gave no tree"});
    parser.run_without_tree();
    return record;
  }
  TSNode root = ts_tree_root_node(tree);
  if (ts_node_has_error(root)) {
    record.facts.parsed = false;
    report_syntax_errors(root, path, source, record.facts.diagnostics);
  }
  parser.run(root);
  ts_tree_delete(tree);
  if (may_declare_extensions(path, source)) record.extensions = find_extension_modules(path, source);
  fit_to_size(record);
  return record;
}

}  // namespace fastci::frontend::python
