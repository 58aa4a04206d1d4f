#include "callgraph/extension_links.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_set>

namespace fastci::callgraph {
namespace {

const std::string kUnnamedModule = "TORCH_EXTENSION_NAME";

/// One component of a dotted call text: `name` or `name(args)`.
struct Component {
  std::string name;
  std::string arguments;
  bool called = false;
};

/// `a.b(x, y.z).c` -> a, b(x, y.z), c: dots inside brackets do not split.
std::vector<Component> components_of(const std::string& text) {
  std::vector<Component> out;
  std::string current;
  int depth = 0;
  auto flush = [&] {
    Component c;
    auto open = current.find_first_of("([");
    c.name = current.substr(0, open);
    if (open != std::string::npos) {
      c.called = current[open] == '(';
      c.arguments = current.substr(open + 1, current.size() > open + 1 ? current.size() - open - 2 : 0);
    }
    out.push_back(std::move(c));
    current.clear();
  };
  for (char ch : text) {
    if (ch == '(' || ch == '[') ++depth;
    if (ch == ')' || ch == ']') --depth;
    if (ch == '.' && depth == 0) {
      flush();
      continue;
    }
    current += ch;
  }
  flush();
  return out;
}

std::string joined(const std::vector<Component>& parts, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) out += (out.empty() ? "" : ".") + parts[i].name;
  return out;
}

/// Where the extension module itself is in the text: after its import name, or after
/// `<Builder>(...).load()`. Returns the index of the first component after it. `prefixes[k]` is
/// joined(parts, 0, k + 1).
std::optional<std::size_t> module_end(const std::vector<Component>& parts, const std::vector<std::string>& prefixes,
                                      const frontend::python::ExtensionModule& e) {
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const std::string& prefix = prefixes[k];
    for (const std::string& name : {e.name, e.absolute_name})
      if (!name.empty() && (prefix == name || (prefix.size() > name.size() && prefix.ends_with(name) &&
                                               prefix[prefix.size() - name.size() - 1] == '.')))
        return k + 1;
    if (e.builder_class.empty() || k + 1 >= parts.size()) continue;
    // InferenceBuilder().load(), create_op_builder(InferenceBuilder).load(), op_builder_dict["x"]().load()
    const Component& c = parts[k];
    bool builder = (c.name == e.builder_class && c.called) ||
                   c.arguments.find(e.builder_class) != std::string::npos ||
                   c.arguments.find("\"" + e.name + "\"") != std::string::npos ||
                   c.arguments.find("'" + e.name + "'") != std::string::npos;
    const std::string& next = parts[k + 1].name;
    if (builder && (next == "load" || next == "jit_load")) return k + 2;
  }
  return std::nullopt;
}

/// Whether some id in the sorted list starts with `prefix`.
bool any_starts_with(const std::vector<std::string>& sorted, const std::string& prefix) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), prefix);
  return it != sorted.end() && it->starts_with(prefix);
}

/// Keeps the items `suffix_of` says nothing about, and puts one copy of each other item per
/// extension name, renamed by `rename(copy, name, suffix)`.
template <typename T, typename SuffixOf, typename Rename>
void fan_out(std::vector<T>& items, const std::vector<std::string>& names, SuffixOf suffix_of, Rename rename) {
  std::vector<T> out;
  for (const T& item : items) {
    const std::string* suffix = suffix_of(item);
    if (!suffix) {
      out.push_back(item);
      continue;
    }
    for (const auto& name : names) {
      out.push_back(item);
      rename(out.back(), name, *suffix);
    }
  }
  items = std::move(out);
}

/// The name of a dotted text's last component (`a.b(x.y).c[0]` -> `c`), as components_of splits it.
std::string_view last_name(std::string_view text) {
  std::size_t start = 0;
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '(' || ch == '[') ++depth;
    if (ch == ')' || ch == ']') --depth;
    if (ch == '.' && depth == 0) start = i + 1;
  }
  std::string_view last = text.substr(start);
  return last.substr(0, last.find_first_of("(["));
}

/// The last names a binding id can be met by: its own last name, and the one before a `__init__`
/// (bindings_named_by also tries `name.__init__`).
std::unordered_set<std::string_view> binding_last_names(const std::vector<std::string>& binding_ids) {
  std::unordered_set<std::string_view> out;
  for (const auto& id : binding_ids) {
    std::string_view rest = std::string_view(id).substr(id.find(':') + 1);
    auto dot = rest.rfind('.');
    std::string_view last = dot == std::string_view::npos ? rest : rest.substr(dot + 1);
    out.insert(last);
    if (last == "__init__" && dot != std::string_view::npos) {
      std::string_view before = rest.substr(0, dot);
      auto previous = before.rfind('.');
      out.insert(previous == std::string_view::npos ? before : before.substr(previous + 1));
    }
  }
  return out;
}

/// Whether bindings_named_by can find anything in a placeholder text: every id it builds ends with
/// the text's last name (or that name and `__init__`), except torch.ops ones. Most placeholders
/// (torch.cat, print, x.view) end otherwise, and building their candidate ids dominated analysis.
bool may_name_a_binding(std::string_view text, const std::unordered_set<std::string_view>& last_names) {
  if (text.starts_with("torch")) return true;
  std::string_view last = last_name(text);
  return last.empty() || last_names.count(last) > 0;
}

}  // namespace

std::vector<ResolvedExtension> resolve_extensions(const std::vector<frontend::python::ExtensionModule>& modules,
                                                  const std::vector<std::string>& native_files) {
  std::vector<ResolvedExtension> out;
  for (const auto& m : modules) {
    auto files = frontend::python::resolve_extension_sources(m, native_files);
    if (!files.empty()) out.push_back({m, std::move(files)});
  }
  return out;
}

void name_extension_bindings(std::vector<frontend::FileFacts>& native_files,
                             const std::vector<ResolvedExtension>& extensions) {
  for (auto& file : native_files) {
    std::vector<std::string> names;
    for (const auto& e : extensions)
      if (std::binary_search(e.files.begin(), e.files.end(), file.path)) names.push_back(e.module.name);
    if (names.empty()) continue;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    const std::string unnamed = kUnnamedModule + "@" + file.path;
    std::map<std::string, std::string> renamed;  // old id -> suffix after the module
    for (const auto& b : file.bindings)
      if (b.extension_module == unnamed) renamed["binding:" + unnamed + "." + b.python_name] = b.python_name;
    if (renamed.empty()) continue;
    fan_out(file.bindings, names, [&](const frontend::Binding& b) -> const std::string* {
      return b.extension_module == unnamed ? &b.python_name : nullptr;
    }, [](frontend::Binding& b, const std::string& name, const std::string&) { b.extension_module = name; });
    auto renamed_suffix = [&](const std::string& id) -> const std::string* {
      auto it = renamed.find(id);
      return it == renamed.end() ? nullptr : &it->second;
    };
    fan_out(file.symbols, names, [&](const frontend::Symbol& s) { return renamed_suffix(s.id); },
            [](frontend::Symbol& s, const std::string& name, const std::string& suffix) {
              s.id = "binding:" + name + "." + suffix;
              s.qualified_name = name + "." + suffix;
            });
    fan_out(file.edges, names, [&](const frontend::Edge& e) { return renamed_suffix(e.from); },
            [](frontend::Edge& e, const std::string& name, const std::string& suffix) {
              e.from = "binding:" + name + "." + suffix;
            });
  }
}

std::vector<std::string> bindings_named_by(const std::string& text, const std::vector<ResolvedExtension>& extensions,
                                           const std::vector<std::string>& binding_ids) {
  auto known = [&](const std::string& id) { return std::binary_search(binding_ids.begin(), binding_ids.end(), id); };
  std::vector<std::string> out;
  auto parts = components_of(text);
  if (parts.size() >= 4 && parts[0].name == "torch" && parts[1].name == "ops") {
    std::string id = "binding:torch.ops." + parts[2].name + "." + parts[3].name;
    if (known(id)) out.push_back(id);
    return out;
  }
  std::vector<std::string> prefixes(parts.size());
  bool every_name = true;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    // As joined(parts, 0, k + 1) builds it: a dot before every name but the first of the text.
    prefixes[k] = k == 0 ? std::string() : prefixes[k - 1];
    prefixes[k] += (prefixes[k].empty() ? "" : ".") + parts[k].name;
    every_name = every_name && !parts[k].name.empty();
  }
  // PYBIND11_MODULE(literal_name, m): the module's import name is in the binding ids already. Split
  // anywhere, the text names the same id when no component is nameless.
  if (every_name && parts.size() >= 2) {
    std::string id = "binding:" + prefixes.back();
    if (known(id)) out.push_back(id);
  } else {
    for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
      std::string id = "binding:" + joined(parts, 0, k + 1) + "." + joined(parts, k + 1, parts.size());
      if (known(id)) out.push_back(id);
    }
  }
  for (const auto& e : extensions) {
    const std::string module_prefix = "binding:" + e.module.name + ".";
    auto end = module_end(parts, prefixes, e.module);
    if (!end || *end >= parts.size()) continue;
    std::string name = joined(parts, *end, parts.size());
    for (const std::string& candidate : {name, name + ".__init__"}) {
      std::string id = module_prefix + candidate;
      if (known(id)) out.push_back(id);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::size_t link_python_to_bindings(frontend::RepositoryFacts& facts, const std::vector<ResolvedExtension>& extensions) {
  std::vector<std::string> binding_ids;
  for (const auto& f : facts.files)
    for (const auto& s : f.symbols)
      if (s.kind == frontend::SymbolKind::binding) binding_ids.push_back(s.id);
  std::sort(binding_ids.begin(), binding_ids.end());
  if (binding_ids.empty()) return 0;
  const auto last_names = binding_last_names(binding_ids);
  // Extensions none of whose bindings the tree has can name nothing: left out once, not per text.
  std::vector<ResolvedExtension> bound;
  for (const auto& e : extensions)
    if (any_starts_with(binding_ids, "binding:" + e.module.name + ".")) bound.push_back(e);
  std::size_t added = 0;
  for (auto& f : facts.files) {
    if (f.language != frontend::Language::python) continue;
    std::vector<frontend::Edge> links;
    for (const auto& e : f.edges) {
      if (!e.to.starts_with("?") || !may_name_a_binding(std::string_view(e.to).substr(1), last_names)) continue;
      for (const auto& id : bindings_named_by(e.to.substr(1), bound, binding_ids))
        links.push_back({e.from, id, frontend::EdgeKind::call, e.file, e.line});
    }
    added += links.size();
    f.edges.insert(f.edges.end(), links.begin(), links.end());
  }
  return added;
}

}  // namespace fastci::callgraph
