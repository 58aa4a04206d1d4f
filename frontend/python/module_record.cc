#include "frontend/python/module_record.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "util/byte_codec.h"
#include "util/hash.h"

namespace fastci::frontend::python {

bool only_comprehension_variables(const std::vector<const NameBinding*>& bindings) {
  return std::all_of(bindings.begin(), bindings.end(), [](const NameBinding* b) { return b->comprehension; });
}

namespace {

using util::ByteReader;
using util::ByteWriter;

/// The record's first bytes: a record of another layout is a cache miss, never a misread.
constexpr std::string_view kFormat = "fastci-python-module/11";

/// An enum written as its number, read back only where it names a value.
template <typename Enum>
Enum enum_from(ByteReader& r, Enum last) {
  std::uint64_t v = r.u64();
  if (v > static_cast<std::uint64_t>(last)) throw util::ByteCodecError("enum value out of range");
  return static_cast<Enum>(v);
}

template <typename Enum>
void put_enum(ByteWriter& w, Enum value) {
  w.u64(static_cast<std::uint64_t>(value));
}

void put_strings(ByteWriter& w, const std::vector<std::string>& values) {
  w.u64(values.size());
  for (const auto& v : values) w.str(v);
}

std::vector<std::string> strings_from(ByteReader& r) {
  std::vector<std::string> out(r.count());
  for (auto& v : out) v = r.str();
  return out;
}

void put_ints(ByteWriter& w, const std::vector<int>& values) {
  w.u64(values.size());
  for (int v : values) w.i64(v);
}

std::vector<int> ints_from(ByteReader& r) {
  std::vector<int> out(r.count());
  for (auto& v : out) v = r.i32();
  return out;
}

void put_optional(ByteWriter& w, const std::optional<std::string>& value) {
  w.boolean(value.has_value());
  if (value) w.str(*value);
}

std::optional<std::string> optional_from(ByteReader& r) {
  if (!r.boolean()) return std::nullopt;
  return r.str();
}

// ---- the facts ------------------------------------------------------------------------------

/// Strings written once and referred to by number: a linked tree repeats the same symbol ids in
/// hundreds of thousands of edges. Records (one file each) are written without one.
class StringTable {
 public:
  std::uint64_t number(std::string_view text) {
    auto [it, fresh] = numbers_.try_emplace(text, texts_.size());
    if (fresh) texts_.push_back(text);
    return it->second;
  }
  const std::vector<std::string_view>& texts() const { return texts_; }

 private:
  struct Hash {
    std::size_t operator()(std::string_view text) const { return util::hash64(text); }
  };
  std::unordered_map<std::string_view, std::uint64_t, Hash> numbers_;
  std::vector<std::string_view> texts_;
};

/// A text of the facts: inline, or its number in the table.
void put_text(ByteWriter& w, StringTable* table, std::string_view text) {
  if (table)
    w.u64(table->number(text));
  else
    w.str(text);
}

std::string text_from(ByteReader& r, const std::vector<std::string>* table) {
  if (!table) return r.str();
  std::uint64_t n = r.u64();
  if (n >= table->size()) throw util::ByteCodecError("string number out of range");
  return (*table)[n];
}

void put_diagnostic(ByteWriter& w, const Diagnostic& d) {
  put_enum(w, d.severity);
  w.str(d.file);
  w.i64(d.line);
  w.str(d.message);
}

Diagnostic diagnostic_from(ByteReader& r) {
  Diagnostic d;
  d.severity = enum_from(r, Diagnostic::Severity::error);
  d.file = r.str();
  d.line = r.i32();
  d.message = r.str();
  return d;
}

void put_facts(ByteWriter& w, const FileFacts& f, StringTable* table = nullptr) {
  w.str(f.path);
  w.str(f.content_hash);
  put_enum(w, f.language);
  w.boolean(f.parsed);
  w.u64(f.symbols.size());
  for (const auto& s : f.symbols) {
    put_text(w, table, s.id);
    put_enum(w, s.language);
    put_enum(w, s.kind);
    put_text(w, table, s.qualified_name);
    put_text(w, table, s.file);
    w.i64(s.first_line);
    w.i64(s.last_line);
    w.u64(s.body_hash);
    w.u64(s.doc_hash);
    w.u64(s.fields_hash);
  }
  w.u64(f.edges.size());
  for (const auto& e : f.edges) {
    put_text(w, table, e.from);
    put_text(w, table, e.to);
    put_enum(w, e.kind);
    put_text(w, table, e.file);
    w.i64(e.line);
  }
  w.u64(f.launches.size());
  for (const auto& l : f.launches) {
    for (const auto* text : {&l.host_function, &l.kernel, &l.grid, &l.block, &l.shared_memory, &l.stream}) w.str(*text);
    put_strings(w, l.template_arguments);
    w.str(l.file);
    w.i64(l.line);
  }
  w.u64(f.bindings.size());
  for (const auto& b : f.bindings) {
    for (const auto* text : {&b.extension_module, &b.python_name, &b.target, &b.dispatch_key, &b.file}) w.str(*text);
    w.i64(b.line);
  }
  w.u64(f.tests.size());
  for (const auto& t : f.tests) {
    w.str(t.id);
    w.str(t.symbol);
    w.str(t.file);
    w.i64(t.line);
    put_strings(w, t.fixtures);
    put_strings(w, t.marks);
    w.i64(t.gpus);
    w.u64(t.knobs.size());
    for (const auto& k : t.knobs) {
      w.str(k.name);
      w.str(k.value);
      put_enum(w, k.origin);
      w.str(k.file);
      w.i64(k.line);
    }
  }
  put_strings(w, f.imported_modules);
  w.u64(f.diagnostics.size());
  for (const auto& d : f.diagnostics) put_diagnostic(w, d);
}

FileFacts facts_from(ByteReader& r, const std::vector<std::string>* table = nullptr) {
  FileFacts f;
  f.path = r.str();
  f.content_hash = r.str();
  f.language = enum_from(r, Language::cuda);
  f.parsed = r.boolean();
  f.symbols.resize(r.count());
  for (auto& s : f.symbols) {
    s.id = text_from(r, table);
    s.language = enum_from(r, Language::cuda);
    s.kind = enum_from(r, SymbolKind::declaration);
    s.qualified_name = text_from(r, table);
    s.file = text_from(r, table);
    s.first_line = r.i32();
    s.last_line = r.i32();
    s.body_hash = r.u64();
    s.doc_hash = r.u64();
    s.fields_hash = r.u64();
  }
  f.edges.resize(r.count());
  for (auto& e : f.edges) {
    e.from = text_from(r, table);
    e.to = text_from(r, table);
    e.kind = enum_from(r, EdgeKind::uses);
    e.file = text_from(r, table);
    e.line = r.i32();
  }
  f.launches.resize(r.count());
  for (auto& l : f.launches) {
    for (auto* text : {&l.host_function, &l.kernel, &l.grid, &l.block, &l.shared_memory, &l.stream}) *text = r.str();
    l.template_arguments = strings_from(r);
    l.file = r.str();
    l.line = r.i32();
  }
  f.bindings.resize(r.count());
  for (auto& b : f.bindings) {
    for (auto* text : {&b.extension_module, &b.python_name, &b.target, &b.dispatch_key, &b.file}) *text = r.str();
    b.line = r.i32();
  }
  f.tests.resize(r.count());
  for (auto& t : f.tests) {
    t.id = r.str();
    t.symbol = r.str();
    t.file = r.str();
    t.line = r.i32();
    t.fixtures = strings_from(r);
    t.marks = strings_from(r);
    t.gpus = r.i32();
    t.knobs.resize(r.count());
    for (auto& k : t.knobs) {
      k.name = r.str();
      k.value = r.str();
      k.origin = enum_from(r, KnobOrigin::declared);
      k.file = r.str();
      k.line = r.i32();
    }
  }
  f.imported_modules = strings_from(r);
  f.diagnostics.resize(r.count());
  for (auto& d : f.diagnostics) d = diagnostic_from(r);
  return f;
}

// ---- scopes and what the linker resolves ----------------------------------------------------

void put_binding(ByteWriter& w, const NameBinding& b) {
  w.str(b.name);
  put_enum(w, b.kind);
  w.str(b.target);
  w.str(b.member);
  w.i64(b.scope);
  w.i64(b.line);
  w.i64(b.statement_first);
  w.i64(b.statement_last);
  w.u64((b.has_key ? 1 : 0) | (b.comprehension ? 2 : 0));
}

NameBinding binding_from(ByteReader& r) {
  NameBinding b;
  b.name = r.str();
  b.kind = enum_from(r, NameBinding::Kind::star_import);
  b.target = r.str();
  b.member = r.str();
  b.scope = r.i32();
  b.line = r.i32();
  b.statement_first = r.i32();
  b.statement_last = r.i32();
  const auto flags = r.u64();
  b.has_key = (flags & 1) != 0;
  b.comprehension = (flags & 2) != 0;
  return b;
}

void put_bindings(ByteWriter& w, const std::vector<NameBinding>& bindings) {
  w.u64(bindings.size());
  for (const auto& b : bindings) put_binding(w, b);
}

std::vector<NameBinding> bindings_from(ByteReader& r) {
  std::vector<NameBinding> out(r.count());
  for (auto& b : out) b = binding_from(r);
  return out;
}

void put_parametrize(ByteWriter& w, const Parametrize& p) {
  put_strings(w, p.argnames);
  w.u64(p.sets.size());
  for (const auto& set : p.sets) {
    put_strings(w, set.values);
    w.u64(set.value_ids.size());
    for (const auto& id : set.value_ids) put_optional(w, id);
    put_optional(w, set.id);
  }
  w.u64(p.ids.size());
  for (const auto& id : p.ids) put_optional(w, id);
  w.boolean(p.indirect);
  w.boolean(p.is_static);
  w.i64(p.line);
}

Parametrize parametrize_from(ByteReader& r) {
  Parametrize p;
  p.argnames = strings_from(r);
  p.sets.resize(r.count());
  for (auto& set : p.sets) {
    set.values = strings_from(r);
    set.value_ids.resize(r.count());
    for (auto& id : set.value_ids) id = optional_from(r);
    set.id = optional_from(r);
  }
  p.ids.resize(r.count());
  for (auto& id : p.ids) id = optional_from(r);
  p.indirect = r.boolean();
  p.is_static = r.boolean();
  p.line = r.i32();
  return p;
}

void put_scope(ByteWriter& w, const Scope& s) {
  put_enum(w, s.kind);
  w.str(s.qualified_name);
  w.str(s.name);
  w.i64(s.parent);
  w.i64(s.line);
  put_bindings(w, s.bindings);
  put_strings(w, s.parameters);
  put_strings(w, s.required_parameters);
  put_strings(w, s.bases);
  put_strings(w, s.returns);
  put_bindings(w, s.instance_attributes);
  for (bool flag : {s.is_staticmethod, s.is_classmethod, s.defines_init, s.not_a_test, s.build_hooks, s.is_fixture,
                    s.fixture_autouse})
    w.boolean(flag);
  w.u64(s.marks.size());
  for (const auto& m : s.marks) {
    w.str(m.name);
    put_strings(w, m.string_args);
    put_ints(w, m.int_args);
    w.i64(m.line);
    w.boolean(m.parametrize.has_value());
    if (m.parametrize) put_parametrize(w, *m.parametrize);
  }
  w.str(s.fixture_name);
  put_ints(w, s.world_sizes);
}

Scope scope_from(ByteReader& r) {
  Scope s;
  s.kind = enum_from(r, Scope::Kind::function);
  s.qualified_name = r.str();
  s.name = r.str();
  s.parent = r.i32();
  s.line = r.i32();
  s.bindings = bindings_from(r);
  s.parameters = strings_from(r);
  s.required_parameters = strings_from(r);
  s.bases = strings_from(r);
  s.returns = strings_from(r);
  s.instance_attributes = bindings_from(r);
  for (bool* flag : {&s.is_staticmethod, &s.is_classmethod, &s.defines_init, &s.not_a_test, &s.build_hooks,
                     &s.is_fixture, &s.fixture_autouse})
    *flag = r.boolean();
  s.marks.resize(r.count());
  for (auto& m : s.marks) {
    m.name = r.str();
    m.string_args = strings_from(r);
    m.int_args = ints_from(r);
    m.line = r.i32();
    if (r.boolean()) m.parametrize = parametrize_from(r);
  }
  s.fixture_name = r.str();
  s.world_sizes = ints_from(r);
  return s;
}

void put_extension(ByteWriter& w, const ExtensionModule& e) {
  w.str(e.name);
  w.str(e.absolute_name);
  w.str(e.builder_class);
  put_strings(w, e.sources);
  w.i64(e.line);
}

/// An extension without its file: a record's extensions are declared by the record's own file.
ExtensionModule extension_from(ByteReader& r) {
  ExtensionModule e;
  e.name = r.str();
  e.absolute_name = r.str();
  e.builder_class = r.str();
  e.sources = strings_from(r);
  e.line = r.i32();
  return e;
}

/// The kinds a raw reference may have (what parse_module records).
bool is_reference_kind(EdgeKind kind) {
  return kind == EdgeKind::call || kind == EdgeKind::decorates || kind == EdgeKind::reference ||
         kind == EdgeKind::virtual_call || kind == EdgeKind::read;
}

}  // namespace

std::string serialize(const ModuleRecord& record) {
  ByteWriter w;
  w.str(kFormat);
  put_facts(w, record.facts);
  w.str(record.module_name);
  w.boolean(record.is_package);
  w.u64(record.scopes.size());
  for (const auto& s : record.scopes) put_scope(w, s);
  w.u64(record.references.size());
  for (const auto& r : record.references) {
    w.i64(r.scope);
    w.str(r.text);
    put_enum(w, r.kind);
    w.i64(r.line);
    w.boolean(r.keep_unresolved);
    w.i64(r.decorated);
    put_strings(w, r.arguments);
    w.i64(r.owner);
  }
  w.u64(record.extensions.size());
  for (const auto& e : record.extensions) put_extension(w, e);
  w.u64(record.variables.size());
  for (const auto& v : record.variables) {
    w.i64(v.scope);
    w.str(v.name);
    w.boolean(v.is_import);
    w.str(v.imported_module);
    w.str(v.imported_member);
  }
  w.boolean(record.star_exports.has_value());
  if (record.star_exports) put_strings(w, *record.star_exports);
  put_strings(w, record.rebound_names);
  return w.take();
}

util::Result<ModuleRecord> deserialize(std::string_view bytes) {
  try {
    ByteReader r(bytes);
    if (r.str() != kFormat) return util::Error{"cached Python module record has an unknown format"};
    ModuleRecord record;
    record.facts = facts_from(r);
    record.module_name = r.str();
    record.is_package = r.boolean();
    record.scopes.resize(r.count());
    for (auto& s : record.scopes) s = scope_from(r);
    record.references.resize(r.count());
    for (auto& ref : record.references) {
      ref.scope = r.i32();
      ref.text = r.str();
      ref.kind = enum_from(r, EdgeKind::uses);
      if (!is_reference_kind(ref.kind)) return util::Error{"cached Python module record: unknown reference kind"};
      ref.line = r.i32();
      ref.keep_unresolved = r.boolean();
      ref.decorated = r.i32();
      ref.arguments = strings_from(r);
      ref.owner = r.i32();
    }
    record.extensions.resize(r.count());
    for (auto& e : record.extensions) {
      e = extension_from(r);
      e.file = record.facts.path;
    }
    record.variables.resize(r.count());
    for (auto& v : record.variables) {
      v.scope = r.i32();
      v.name = r.str();
      v.is_import = r.boolean();
      v.imported_module = r.str();
      v.imported_member = r.str();
    }
    if (r.boolean()) record.star_exports = strings_from(r);
    record.rebound_names = strings_from(r);
    if (!r.done()) return util::Error{"cached Python module record: bytes after the end"};
    int scope_count = static_cast<int>(record.scopes.size());
    if (scope_count == 0 || record.facts.symbols.size() != record.scopes.size() + record.variables.size())
      return util::Error{"cached Python module record: scopes do not match symbols"};
    for (const auto& s : record.scopes)
      if (s.parent >= scope_count) return util::Error{"cached Python module record: bad parent"};
    for (const auto& ref : record.references)
      if (ref.scope < 0 || ref.scope >= scope_count || ref.decorated >= scope_count ||
          ref.owner >= static_cast<int>(record.variables.size()))
        return util::Error{"cached Python module record: reference to an unknown scope"};
    for (const auto& v : record.variables)
      if (v.scope < 0 || v.scope >= scope_count)
        return util::Error{"cached Python module record: variable in an unknown scope"};
    return record;
  } catch (const util::ByteCodecError& e) {
    return util::Error{std::string("malformed cached Python module record: ") + e.what()};
  }
}

// The linked form is written once per tree and read by every later analysis of the same tree, so
// its layout has its own format tag: a record layout change does not have to invalidate it.
constexpr std::string_view kLinkedFormat = "fastci-python-linked/4";

ConstantReads constant_reads(const std::vector<ModuleRecord>& records) {
  ConstantReads out;
  out.known = true;
  out.call_arguments = false;
  std::set<std::string_view> names;
  std::vector<std::string_view> work;
  auto add = [&](std::string_view name) {
    if (names.insert(name).second) work.push_back(name);
  };
  for (const auto& record : records)
    for (const auto& r : record.references)
      for (auto at = r.text.find("[=v:"); at != std::string::npos; at = r.text.find("[=v:", at + 1))
        add(std::string_view(r.text).substr(at + 4, r.text.find(']', at) - at - 4));
  if (names.empty()) return out;
  // The bindings that lead from a name to another (an alias, an import) or to call sites (a parameter).
  auto plain = [](std::string_view t) { return !t.empty() && t.find_first_of(".([@#=") == std::string_view::npos; };
  std::unordered_map<std::string_view, std::vector<const NameBinding*>> leads;
  for (const auto& record : records)
    for (const auto& scope : record.scopes)
      for (const auto& b : scope.bindings)
        if ((b.kind == NameBinding::Kind::alias && b.member.empty() && plain(b.target)) ||
            (b.kind == NameBinding::Kind::from_import && plain(b.member)) || b.kind == NameBinding::Kind::parameter)
          leads[b.name].push_back(&b);
  auto follow = [&] {
    while (!work.empty()) {
      const std::string_view name = work.back();
      work.pop_back();
      if (auto found = leads.find(name); found != leads.end())
        for (const NameBinding* b : found->second) {
          if (b->kind == NameBinding::Kind::alias) add(b->target);
          else if (b->kind == NameBinding::Kind::from_import) add(b->member);
          else out.call_arguments = true;
        }
    }
  };
  follow();
  if (out.call_arguments) {
    // A parameter's constants are what its call sites pass: every name passed leads on too.
    for (const auto& record : records)
      for (const auto& r : record.references)
        for (const auto& argument : r.arguments)
          if (plain(argument_value(argument))) add(argument_value(argument));
    follow();
  }
  out.names.assign(names.begin(), names.end());
  return out;
}

std::string serialize(const LinkedTree& tree) {
  return serialize_linked(tree.facts, tree.extensions, tree.constant_reads);
}

std::string serialize_linked(const RepositoryFacts& facts, const std::vector<ExtensionModule>& extensions,
                             const ConstantReads& constant_reads) {
  StringTable table;
  ByteWriter body;
  body.u64(facts.files.size());
  for (const auto& f : facts.files) put_facts(body, f, &table);
  body.u64(facts.diagnostics.size());
  for (const auto& d : facts.diagnostics) put_diagnostic(body, d);
  body.u64(extensions.size());
  for (const auto& e : extensions) {
    put_extension(body, e);
    body.str(e.file);
  }
  body.boolean(constant_reads.known);
  put_strings(body, constant_reads.names);
  body.boolean(constant_reads.call_arguments);
  ByteWriter w;
  w.str(kLinkedFormat);
  w.u64(table.texts().size());
  for (auto text : table.texts()) w.str(text);
  // One copy of the body, not two: the texts (the smaller part) go in front of it in place.
  std::string out = body.take();
  out.insert(0, w.bytes());
  return out;
}

util::Result<LinkedTree> deserialize_linked(std::string_view bytes) {
  try {
    ByteReader r(bytes);
    if (r.str() != kLinkedFormat) return util::Error{"cached linked facts have an unknown format"};
    std::vector<std::string> table(r.count());
    for (auto& text : table) text = r.str();
    LinkedTree tree;
    tree.facts.files.resize(r.count());
    for (auto& f : tree.facts.files) f = facts_from(r, &table);
    tree.facts.diagnostics.resize(r.count());
    for (auto& d : tree.facts.diagnostics) d = diagnostic_from(r);
    tree.extensions.resize(r.count());
    for (auto& e : tree.extensions) {
      e = extension_from(r);
      e.file = r.str();
    }
    tree.constant_reads.known = r.boolean();
    tree.constant_reads.names = strings_from(r);
    tree.constant_reads.call_arguments = r.boolean();
    if (!r.done()) return util::Error{"cached linked facts: bytes after the end"};
    return tree;
  } catch (const util::ByteCodecError& e) {
    return util::Error{std::string("malformed cached linked facts: ") + e.what()};
  }
}

std::string keyed_element_name(std::string_view container, std::string_view key) {
  return std::string(container) + "[=" + std::string(key) + "]";
}

std::string without_keys(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '[' && i + 1 < text.size() && text[i + 1] == '=') {
      i = text.find(']', i);
      if (i == std::string_view::npos) break;
      out += ']';
    }
  }
  return out;
}

std::string module_name_for_path(std::string_view path) {
  std::string p(path);
  while (p.rfind("./", 0) == 0) p.erase(0, 2);
  if (p.size() >= 3 && p.compare(p.size() - 3, 3, ".py") == 0) p.resize(p.size() - 3);
  else if (p.size() >= 4 && p.compare(p.size() - 4, 4, ".pyi") == 0) p.resize(p.size() - 4);
  const std::string init = "__init__";
  if (p == init) return p;  // a repository-root __init__.py keeps its own name
  if (p.size() > init.size() && p.compare(p.size() - init.size() - 1, init.size() + 1, "/" + init) == 0)
    p.resize(p.size() - init.size() - 1);
  for (char& c : p)
    if (c == '/') c = '.';
  return p;
}

}  // namespace fastci::frontend::python
