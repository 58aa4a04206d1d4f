#include "frontend/facts_json.h"

#include <string_view>

namespace fastci::frontend {
namespace {

using nlohmann::json;

template <typename Enum, std::size_t N>
Enum enum_from(std::string_view text, const Enum (&values)[N]) {
  for (Enum value : values)
    if (text == to_string(value)) return value;
  throw std::invalid_argument("unknown value '" + std::string(text) + "'");
}

constexpr Language kLanguages[] = {Language::python, Language::cpp, Language::cuda};
constexpr SymbolKind kSymbolKinds[] = {SymbolKind::module, SymbolKind::class_, SymbolKind::function,
                                       SymbolKind::method, SymbolKind::kernel, SymbolKind::binding,
                                       SymbolKind::test, SymbolKind::placeholder, SymbolKind::variable,
                                       SymbolKind::declaration};
constexpr EdgeKind kEdgeKinds[] = {
    EdgeKind::call, EdgeKind::virtual_call, EdgeKind::kernel_launch, EdgeKind::binding,
    EdgeKind::import, EdgeKind::override_, EdgeKind::fixture, EdgeKind::dispatch_registration,
    EdgeKind::contains, EdgeKind::decorates, EdgeKind::reference,
    EdgeKind::read, EdgeKind::name_match, EdgeKind::uses};
constexpr KnobOrigin kKnobOrigins[] = {KnobOrigin::parametrize, KnobOrigin::keyword_argument,
                                       KnobOrigin::cli_argument, KnobOrigin::config_file,
                                       KnobOrigin::attribute, KnobOrigin::declared};

json knob_json(const WorkloadKnob& k) {
  return {{"name", k.name}, {"value", k.value}, {"origin", to_string(k.origin)},
          {"file", k.file}, {"line", k.line}};
}

}  // namespace

json to_json(const FileFacts& facts) {
  json symbols = json::array();
  for (const auto& s : facts.symbols) {
    symbols.push_back({{"id", s.id}, {"language", to_string(s.language)},
                       {"kind", to_string(s.kind)}, {"name", s.qualified_name}, {"file", s.file},
                       {"first", s.first_line}, {"last", s.last_line}, {"hash", s.body_hash}, {"doc", s.doc_hash}});
    if (s.fields_hash != 0) symbols.back()["fields"] = s.fields_hash;
  }
  json edges = json::array();
  for (const auto& e : facts.edges)
    edges.push_back({{"from", e.from}, {"to", e.to}, {"kind", to_string(e.kind)},
                     {"file", e.file.empty() ? facts.path : e.file}, {"line", e.line}});
  json launches = json::array();
  for (const auto& l : facts.launches)
    launches.push_back({{"host", l.host_function}, {"kernel", l.kernel}, {"grid", l.grid},
                        {"block", l.block}, {"shared", l.shared_memory}, {"stream", l.stream},
                        {"template_arguments", l.template_arguments}, {"file", l.file},
                        {"line", l.line}});
  json bindings = json::array();
  for (const auto& b : facts.bindings)
    bindings.push_back({{"module", b.extension_module}, {"name", b.python_name},
                        {"target", b.target}, {"dispatch_key", b.dispatch_key}, {"file", b.file},
                        {"line", b.line}});
  json tests = json::array();
  for (const auto& t : facts.tests) {
    json knobs = json::array();
    for (const auto& k : t.knobs) knobs.push_back(knob_json(k));
    tests.push_back({{"id", t.id}, {"symbol", t.symbol}, {"file", t.file}, {"line", t.line},
                     {"fixtures", t.fixtures}, {"marks", t.marks}, {"gpus", t.gpus},
                     {"knobs", knobs}});
  }
  json diagnostics = json::array();
  for (const auto& d : facts.diagnostics)
    diagnostics.push_back({{"severity", d.severity == Diagnostic::Severity::error ? "error" : "warning"},
                           {"file", d.file}, {"line", d.line}, {"message", d.message}});
  return {{"path", facts.path}, {"content_hash", facts.content_hash},
          {"language", to_string(facts.language)}, {"parsed", facts.parsed},
          {"symbols", symbols}, {"edges", edges}, {"launches", launches},
          {"bindings", bindings}, {"tests", tests}, {"imports", facts.imported_modules},
          {"diagnostics", diagnostics}};
}

util::Result<FileFacts> file_facts_from_json(const json& j) {
  try {
    FileFacts f;
    f.path = j.at("path").get<std::string>();
    f.content_hash = j.at("content_hash").get<std::string>();
    f.language = enum_from(j.at("language").get<std::string>(), kLanguages);
    f.parsed = j.at("parsed").get<bool>();
    for (const auto& s : j.at("symbols"))
      f.symbols.push_back({s.at("id"), enum_from(s.at("language").get<std::string>(), kLanguages),
                           enum_from(s.at("kind").get<std::string>(), kSymbolKinds), s.at("name"),
                           s.at("file"), s.at("first"), s.at("last"), s.at("hash"), s.value("doc", std::uint64_t{0}),
                           s.value("fields", std::uint64_t{0})});
    for (const auto& e : j.at("edges"))
      f.edges.push_back({e.at("from"), e.at("to"),
                         enum_from(e.at("kind").get<std::string>(), kEdgeKinds), e.at("file"),
                         e.at("line")});
    for (const auto& l : j.at("launches"))
      f.launches.push_back({l.at("host"), l.at("kernel"), l.at("grid"), l.at("block"),
                            l.at("shared"), l.at("stream"), l.at("template_arguments"),
                            l.at("file"), l.at("line")});
    for (const auto& b : j.at("bindings"))
      f.bindings.push_back({b.at("module"), b.at("name"), b.at("target"), b.at("dispatch_key"),
                            b.at("file"), b.at("line")});
    for (const auto& t : j.at("tests")) {
      Test test{t.at("id"), t.at("symbol"), t.at("file"), t.at("line"), t.at("fixtures"),
                t.at("marks"), t.at("gpus"), {}};
      for (const auto& k : t.at("knobs"))
        test.knobs.push_back({k.at("name"), k.at("value"),
                              enum_from(k.at("origin").get<std::string>(), kKnobOrigins),
                              k.at("file"), k.at("line")});
      f.tests.push_back(std::move(test));
    }
    f.imported_modules = j.at("imports").get<std::vector<std::string>>();
    for (const auto& d : j.at("diagnostics"))
      f.diagnostics.push_back({d.at("severity") == "error" ? Diagnostic::Severity::error
                                                           : Diagnostic::Severity::warning,
                               d.at("file"), d.at("line"), d.at("message")});
    return f;
  } catch (const std::exception& e) {
    return util::Error{std::string("malformed cached facts: ") + e.what()};
  }
}

}  // namespace fastci::frontend
