#include "frontend/python/extension_modules.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "frontend/python/syntax_tree.h"

namespace fastci::frontend::python {
namespace {

constexpr int kMaxDepth = 200;

bool is_native_source(std::string_view text) {
  for (const char* extension : {".cpp", ".cc", ".cxx", ".c", ".cu", ".cuh", ".h", ".hpp"})
    if (text.ends_with(extension)) return true;
  return false;
}

std::string folder_of(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

/// Reads one Python file's extension declarations.
class ExtensionReader {
 public:
  ExtensionReader(std::string_view path, std::string_view source) : path_(path), source_(source) {}

  std::vector<ExtensionModule> run(TSNode root) {
    visit(root, 0);
    return std::move(found_);
  }

 private:
  std::string_view text(TSNode node) const {
    uint32_t start = std::min<uint32_t>(ts_node_start_byte(node), source_.size());
    uint32_t end = std::min<uint32_t>(ts_node_end_byte(node), source_.size());
    return source_.substr(start, end - start);
  }

  /// The content of a plain or f-string literal without prefix and quotes; nullopt otherwise.
  std::optional<std::string> string_value(TSNode node) const {
    if (!is(node, "string")) return std::nullopt;
    std::string_view t = text(node);
    std::size_t prefix = 0;
    while (prefix < t.size() && t[prefix] != '\'' && t[prefix] != '"') ++prefix;
    t.remove_prefix(prefix);
    std::size_t quotes = t.starts_with("\"\"\"") || t.starts_with("'''") ? 3 : 1;
    if (t.size() < 2 * quotes) return std::nullopt;
    return std::string(t.substr(quotes, t.size() - 2 * quotes));
  }

  /// Every string literal under a node that names a C++/CUDA file.
  void source_strings(TSNode node, std::vector<std::string>& out, int depth = 0) const {
    if (depth > kMaxDepth) return;
    if (auto value = string_value(node)) {
      if (is_native_source(*value)) out.push_back(*value);
      return;
    }
    if (is(node, "identifier")) {
      // sources = [...] assigned earlier in the same file, then passed by name
      auto it = list_assignments_.find(std::string(text(node)));
      if (it != list_assignments_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
    for (TSNode child : children(node)) source_strings(child, out, depth + 1);
  }

  void visit(TSNode node, int depth) {
    if (depth > kMaxDepth) return;
    if (is(node, "class_definition")) read_builder_class(node);
    if (is(node, "assignment")) remember_assignment(node);
    if (is(node, "call")) read_call(node);
    for (TSNode child : children(node)) visit(child, depth + 1);
  }

  void remember_assignment(TSNode node) {
    TSNode left = field(node, "left"), right = field(node, "right");
    if (ts_node_is_null(left) || ts_node_is_null(right) || !is(left, "identifier")) return;
    std::vector<std::string> sources;
    source_strings(right, sources);
    if (!sources.empty()) list_assignments_[std::string(text(left))] = std::move(sources);
  }

  /// name=/sources= keywords (CUDAExtension, cpp_extension.load), or a helper called as
  /// helper("name", sources, ...) with a first positional name and a list or `sources` variable.
  void read_call(TSNode call) {
    TSNode arguments = field(call, "arguments");
    if (ts_node_is_null(arguments) || !is(arguments, "argument_list")) return;
    std::optional<std::string> name;
    std::vector<std::string> sources;
    bool first = true;
    for (TSNode argument : children(arguments)) {
      if (is(argument, "keyword_argument")) {
        std::string_view key = text(field(argument, "name"));
        TSNode value = field(argument, "value");
        if (key == "name") name = string_value(value);
        else if (key == "sources" || key == "cpp_sources" || key == "cuda_sources") source_strings(value, sources);
      } else if (first) {
        name = string_value(argument);
      } else if (is(argument, "list") || (is(argument, "identifier") && text(argument).find("source") != std::string_view::npos)) {
        source_strings(argument, sources);
      }
      first = false;
    }
    if (!name || sources.empty() || !valid_module_name(*name)) return;
    ExtensionModule extension;
    extension.name = *name;
    extension.sources = std::move(sources);
    extension.file = std::string(path_);
    extension.line = line_of(call);
    found_.push_back(std::move(extension));
  }

  static bool valid_module_name(const std::string& name) {
    if (name.empty()) return false;
    return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; });
  }

  /// class XBuilder(...): NAME = "x"; def sources(self): return [...]; def absolute_name(self): ...
  void read_builder_class(TSNode node) {
    TSNode body = field(node, "body");
    if (ts_node_is_null(body)) return;
    ExtensionModule extension;
    extension.builder_class = std::string(text(field(node, "name")));
    extension.file = std::string(path_);
    extension.line = line_of(node);
    std::string absolute_template;
    for (TSNode statement : children(body)) {
      TSNode inner = is(statement, "expression_statement") && ts_node_named_child_count(statement) > 0
                         ? ts_node_named_child(statement, 0) : statement;
      if (is(inner, "assignment")) {
        TSNode left = field(inner, "left");
        if (!ts_node_is_null(left) && text(left) == "NAME")
          if (auto value = string_value(field(inner, "right"))) extension.name = *value;
      }
      TSNode function = is(inner, "decorated_definition") ? field(inner, "definition") : inner;
      if (!is(function, "function_definition")) continue;
      std::string_view method = text(field(function, "name"));
      if (method == "sources") source_strings(field(function, "body"), extension.sources);
      if (method == "absolute_name") absolute_template = first_string(field(function, "body"));
    }
    if (extension.name.empty() || extension.sources.empty()) return;
    if (auto at = absolute_template.find("{self.NAME}"); at != std::string::npos)
      extension.absolute_name = absolute_template.replace(at, 11, extension.name);
    else if (valid_module_name(absolute_template))
      extension.absolute_name = absolute_template;
    found_.push_back(std::move(extension));
  }

  std::string first_string(TSNode node, int depth = 0) const {
    if (ts_node_is_null(node) || depth > kMaxDepth) return {};
    if (auto value = string_value(node)) return *value;
    for (TSNode child : children(node))
      if (auto value = first_string(child, depth + 1); !value.empty()) return value;
    return {};
  }

  std::string_view path_;
  std::string_view source_;
  std::map<std::string, std::vector<std::string>> list_assignments_;
  std::vector<ExtensionModule> found_;
};

}  // namespace

bool may_declare_extensions(std::string_view path, std::string_view source) {
  if (!path.ends_with(".py")) return false;
  for (const char* marker : {"Extension(", "cpp_extension", "def sources(", "load_inline"})
    if (source.find(marker) != std::string_view::npos) return true;
  return false;
}

std::vector<ExtensionModule> find_extension_modules(std::string_view path, std::string_view source) {
  if (source.size() >= UINT32_MAX / 2 || source.find('\0') != std::string_view::npos) return {};
  TSParser* parser = thread_parser();
  ts_parser_reset(parser);
  TSTree* tree = ts_parser_parse_string(parser, nullptr, source.data(), static_cast<uint32_t>(source.size()));
  if (tree == nullptr) return {};
  auto found = ExtensionReader(path, source).run(ts_tree_root_node(tree));
  ts_tree_delete(tree);
  return found;
}

std::vector<std::string> resolve_extension_sources(const ExtensionModule& extension,
                                                   const std::vector<std::string>& native_files) {
  std::vector<std::string> out;
  const std::string folder = folder_of(extension.file);
  for (std::string written : extension.sources) {
    while (written.starts_with("./")) written.erase(0, 2);
    while (written.starts_with("/")) written.erase(0, 1);
    const std::string relative = folder.empty() ? written : folder + "/" + written;
    std::vector<std::string> matches;
    for (const auto& file : native_files)
      if (file == written || file == relative) matches.push_back(file);
    if (matches.empty())
      for (const auto& file : native_files)
        if (file.ends_with("/" + written)) matches.push_back(file);
    out.insert(out.end(), matches.begin(), matches.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace fastci::frontend::python
