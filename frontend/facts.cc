#include "frontend/facts.h"

#include <initializer_list>

namespace fastci::frontend {

namespace {

bool ends_with_any(std::string_view path, std::initializer_list<std::string_view> extensions) {
  for (std::string_view e : extensions)
    if (path.ends_with(e)) return true;
  return false;
}

}  // namespace

bool is_native_source(std::string_view path) {
  return is_native_translation_unit(path) || ends_with_any(path, {".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".tpp"});
}

bool is_native_translation_unit(std::string_view path) {
  return ends_with_any(path, {".c", ".cc", ".cpp", ".cxx", ".cu"});
}

const char* to_string(Language language) {
  switch (language) {
    case Language::python: return "python";
    case Language::cpp: return "cpp";
    case Language::cuda: return "cuda";
  }
  return "unknown";
}

const char* to_string(SymbolKind kind) {
  switch (kind) {
    case SymbolKind::module: return "module";
    case SymbolKind::class_: return "class";
    case SymbolKind::function: return "function";
    case SymbolKind::method: return "method";
    case SymbolKind::kernel: return "kernel";
    case SymbolKind::binding: return "binding";
    case SymbolKind::test: return "test";
    case SymbolKind::placeholder: return "placeholder";
    case SymbolKind::variable: return "variable";
    case SymbolKind::declaration: return "declaration";
  }
  return "unknown";
}

const char* to_string(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::call: return "call";
    case EdgeKind::virtual_call: return "virtual-call";
    case EdgeKind::kernel_launch: return "kernel-launch";
    case EdgeKind::binding: return "binding";
    case EdgeKind::import: return "import";
    case EdgeKind::override_: return "override";
    case EdgeKind::fixture: return "fixture";
    case EdgeKind::dispatch_registration: return "dispatch-registration";
    case EdgeKind::contains: return "contains";
    case EdgeKind::decorates: return "decorates";
    case EdgeKind::reference: return "reference";
    case EdgeKind::read: return "read";
    case EdgeKind::name_match: return "name-match";
    case EdgeKind::uses: return "uses";
  }
  return "unknown";
}

const char* to_string(KnobOrigin origin) {
  switch (origin) {
    case KnobOrigin::parametrize: return "parametrize";
    case KnobOrigin::keyword_argument: return "keyword-argument";
    case KnobOrigin::cli_argument: return "cli-argument";
    case KnobOrigin::config_file: return "config-file";
    case KnobOrigin::attribute: return "attribute";
    case KnobOrigin::declared: return "declared";
  }
  return "unknown";
}

}  // namespace fastci::frontend
