#include "frontend/python/module_record.h"

#include <nlohmann/json.hpp>

#include "frontend/facts_json.h"

namespace fastci::frontend::python {
namespace {

using nlohmann::json;

json optional_json(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

std::optional<std::string> optional_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<std::string>();
}

json binding_json(const NameBinding& b) {
  return json::array({b.name, static_cast<int>(b.kind), b.target, b.member, b.scope, b.line});
}

NameBinding binding_from(const json& j) {
  NameBinding b;
  b.name = j.at(0).get<std::string>();
  int kind = j.at(1).get<int>();
  if (kind < 0 || kind > static_cast<int>(NameBinding::Kind::star_import))
    throw std::invalid_argument("binding kind out of range");
  b.kind = static_cast<NameBinding::Kind>(kind);
  b.target = j.at(2).get<std::string>();
  b.member = j.at(3).get<std::string>();
  b.scope = j.at(4).get<int>();
  b.line = j.at(5).get<int>();
  return b;
}

json parametrize_json(const Parametrize& p) {
  json sets = json::array();
  for (const auto& set : p.sets) {
    json ids = json::array();
    for (const auto& id : set.value_ids) ids.push_back(optional_json(id));
    sets.push_back({{"values", set.values}, {"value_ids", ids}, {"id", optional_json(set.id)}});
  }
  json ids = json::array();
  for (const auto& id : p.ids) ids.push_back(optional_json(id));
  return {{"argnames", p.argnames}, {"sets", sets},       {"ids", ids},
          {"indirect", p.indirect}, {"static", p.is_static}, {"line", p.line}};
}

Parametrize parametrize_from(const json& j) {
  Parametrize p;
  p.argnames = j.at("argnames").get<std::vector<std::string>>();
  for (const auto& s : j.at("sets")) {
    ParameterSet set;
    set.values = s.at("values").get<std::vector<std::string>>();
    for (const auto& id : s.at("value_ids")) set.value_ids.push_back(optional_from(id));
    set.id = optional_from(s.at("id"));
    p.sets.push_back(std::move(set));
  }
  for (const auto& id : j.at("ids")) p.ids.push_back(optional_from(id));
  p.indirect = j.at("indirect").get<bool>();
  p.is_static = j.at("static").get<bool>();
  p.line = j.at("line").get<int>();
  return p;
}

json mark_json(const Mark& m) {
  json j = {{"name", m.name}, {"strings", m.string_args}, {"ints", m.int_args}, {"line", m.line}};
  if (m.parametrize) j["parametrize"] = parametrize_json(*m.parametrize);
  return j;
}

Mark mark_from(const json& j) {
  Mark m;
  m.name = j.at("name").get<std::string>();
  m.string_args = j.at("strings").get<std::vector<std::string>>();
  m.int_args = j.at("ints").get<std::vector<int>>();
  m.line = j.at("line").get<int>();
  if (j.contains("parametrize")) m.parametrize = parametrize_from(j.at("parametrize"));
  return m;
}

json bindings_json(const std::vector<NameBinding>& bindings) {
  json out = json::array();
  for (const auto& b : bindings) out.push_back(binding_json(b));
  return out;
}

std::vector<NameBinding> bindings_from(const json& j) {
  std::vector<NameBinding> out;
  for (const auto& b : j) out.push_back(binding_from(b));
  return out;
}

json scope_json(const Scope& s) {
  json marks = json::array();
  for (const auto& m : s.marks) marks.push_back(mark_json(m));
  return {{"kind", static_cast<int>(s.kind)},
          {"qualified_name", s.qualified_name},
          {"name", s.name},
          {"parent", s.parent},
          {"line", s.line},
          {"bindings", bindings_json(s.bindings)},
          {"parameters", s.parameters},
          {"required", s.required_parameters},
          {"bases", s.bases},
          {"returns", s.returns},
          {"instance_attributes", bindings_json(s.instance_attributes)},
          {"static", s.is_staticmethod},
          {"classmethod", s.is_classmethod},
          {"defines_init", s.defines_init},
          {"not_a_test", s.not_a_test},
          {"build_hooks", s.build_hooks},
          {"marks", marks},
          {"fixture", s.is_fixture},
          {"fixture_name", s.fixture_name},
          {"autouse", s.fixture_autouse},
          {"world_sizes", s.world_sizes}};
}

Scope scope_from(const json& j) {
  Scope s;
  int kind = j.at("kind").get<int>();
  if (kind < 0 || kind > static_cast<int>(Scope::Kind::function))
    throw std::invalid_argument("scope kind out of range");
  s.kind = static_cast<Scope::Kind>(kind);
  s.qualified_name = j.at("qualified_name").get<std::string>();
  s.name = j.at("name").get<std::string>();
  s.parent = j.at("parent").get<int>();
  s.line = j.at("line").get<int>();
  s.bindings = bindings_from(j.at("bindings"));
  s.parameters = j.at("parameters").get<std::vector<std::string>>();
  s.required_parameters = j.at("required").get<std::vector<std::string>>();
  s.bases = j.at("bases").get<std::vector<std::string>>();
  s.returns = j.at("returns").get<std::vector<std::string>>();
  s.instance_attributes = bindings_from(j.at("instance_attributes"));
  s.is_staticmethod = j.at("static").get<bool>();
  s.is_classmethod = j.at("classmethod").get<bool>();
  s.defines_init = j.at("defines_init").get<bool>();
  s.not_a_test = j.at("not_a_test").get<bool>();
  s.build_hooks = j.at("build_hooks").get<bool>();
  for (const auto& m : j.at("marks")) s.marks.push_back(mark_from(m));
  s.is_fixture = j.at("fixture").get<bool>();
  s.fixture_name = j.at("fixture_name").get<std::string>();
  s.fixture_autouse = j.at("autouse").get<bool>();
  s.world_sizes = j.at("world_sizes").get<std::vector<int>>();
  return s;
}

}  // namespace

std::string serialize(const ModuleRecord& record) {
  json scopes = json::array();
  for (const auto& s : record.scopes) scopes.push_back(scope_json(s));
  json references = json::array();
  for (const auto& r : record.references)
    references.push_back(json::array({r.scope, r.text, to_string(r.kind), r.line,
                                      r.keep_unresolved, r.decorated, r.arguments, r.owner}));
  json variables = json::array();
  for (const auto& v : record.variables)
    variables.push_back(json::array({v.scope, v.name, v.is_import, v.imported_module, v.imported_member}));
  json extensions = json::array();
  for (const auto& e : record.extensions)
    extensions.push_back(json::array({e.name, e.absolute_name, e.builder_class, e.sources, e.line}));
  json j = {{"format", "fastci-python-module/6"},
            {"facts", to_json(record.facts)},
            {"module", record.module_name},
            {"package", record.is_package},
            {"scopes", scopes},
            {"references", references},
            {"extensions", extensions},
            {"variables", variables},
            {"exports", record.star_exports ? json(*record.star_exports) : json()}};
  // MessagePack: about twice as fast to read back as JSON text, and it keeps bytes that are not
  // UTF-8 as they are.
  std::vector<std::uint8_t> bytes = json::to_msgpack(j);
  return std::string(bytes.begin(), bytes.end());
}

util::Result<ModuleRecord> deserialize(std::string_view bytes) {
  json j = json::from_msgpack(bytes.begin(), bytes.end(), /*strict=*/true, /*allow_exceptions=*/false);
  if (j.is_discarded()) return util::Error{"cached Python module record is not valid MessagePack"};
  try {
    if (j.at("format") != "fastci-python-module/6")
      return util::Error{"cached Python module record has an unknown format"};
    ModuleRecord record;
    auto facts = file_facts_from_json(j.at("facts"));
    if (!facts) return facts.error();
    record.facts = std::move(*facts);
    record.module_name = j.at("module").get<std::string>();
    record.is_package = j.at("package").get<bool>();
    for (const auto& s : j.at("scopes")) record.scopes.push_back(scope_from(s));
    for (const auto& e : j.at("extensions"))
      record.extensions.push_back({e.at(0).get<std::string>(), e.at(1).get<std::string>(), e.at(2).get<std::string>(),
                                   e.at(3).get<std::vector<std::string>>(), record.facts.path, e.at(4).get<int>()});
    for (const auto& r : j.at("references")) {
      RawReference ref;
      ref.scope = r.at(0).get<int>();
      ref.text = r.at(1).get<std::string>();
      std::string kind = r.at(2).get<std::string>();
      bool known = false;
      for (EdgeKind k : {EdgeKind::call, EdgeKind::decorates, EdgeKind::reference,
                         EdgeKind::virtual_call, EdgeKind::read}) {
        if (kind == to_string(k)) {
          ref.kind = k;
          known = true;
        }
      }
      if (!known) return util::Error{"cached Python module record: unknown reference kind " + kind};
      ref.line = r.at(3).get<int>();
      ref.keep_unresolved = r.at(4).get<bool>();
      ref.decorated = r.at(5).get<int>();
      ref.arguments = r.at(6).get<std::vector<std::string>>();
      ref.owner = r.at(7).get<int>();
      record.references.push_back(std::move(ref));
    }
    for (const auto& v : j.at("variables"))
      record.variables.push_back({v.at(0).get<int>(), v.at(1).get<std::string>(), v.at(2).get<bool>(),
                                  v.at(3).get<std::string>(), v.at(4).get<std::string>()});
    if (!j.at("exports").is_null()) record.star_exports = j.at("exports").get<std::vector<std::string>>();
    int scope_count = static_cast<int>(record.scopes.size());
    if (scope_count == 0 || record.facts.symbols.size() != record.scopes.size() + record.variables.size())
      return util::Error{"cached Python module record: scopes do not match symbols"};
    for (const auto& s : record.scopes)
      if (s.parent >= scope_count) return util::Error{"cached Python module record: bad parent"};
    for (const auto& r : record.references)
      if (r.scope < 0 || r.scope >= scope_count || r.decorated >= scope_count ||
          r.owner >= static_cast<int>(record.variables.size()))
        return util::Error{"cached Python module record: reference to an unknown scope"};
    for (const auto& v : record.variables)
      if (v.scope < 0 || v.scope >= scope_count)
        return util::Error{"cached Python module record: variable in an unknown scope"};
    return record;
  } catch (const std::exception& e) {
    return util::Error{std::string("malformed cached Python module record: ") + e.what()};
  }
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
