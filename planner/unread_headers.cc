#include "planner/unread_headers.h"

#include <optional>
#include <string>

#include "callgraph/native_index.h"

namespace fastci::planner {
namespace {

bool is_header(const std::string& path) {
  return callgraph::is_native_source(path) && !callgraph::is_translation_unit(path);
}

/// The name of a `missing include "x.h"` diagnostic of the C++ frontend.
std::optional<std::string> missing_include(const std::string& message) {
  const std::string_view prefix = frontend::kMissingIncludeDiagnostic;
  if (!message.starts_with(prefix) || message.size() < prefix.size() + 2) return std::nullopt;
  const char close = message[prefix.size()] == '<' ? '>' : '"';
  const auto end = message.find(close, prefix.size() + 1);
  if (end == std::string::npos) return std::nullopt;
  return message.substr(prefix.size() + 1, end - prefix.size() - 1);
}

/// Whether an include spelled `name` can be the repository file `path` (a path suffix at a '/').
bool may_name(const std::string& name, const std::string& path) {
  if (name.empty() || !path.ends_with(name)) return false;
  return path.size() == name.size() || path[path.size() - name.size() - 1] == '/';
}

}  // namespace

void place_unread_headers(const std::vector<const frontend::FileFacts*>& units, ChangeSet& changes) {
  std::vector<Widening> kept, added;
  for (auto& w : changes.widenings) {
    if (w.scope != Widening::Scope::everything || w.reason != kNativeWithoutFacts || !is_header(w.file)) {
      kept.push_back(std::move(w));
      continue;
    }
    bool named = false;
    for (const auto* unit : units)
      for (const auto& d : unit->diagnostics) {
        auto name = missing_include(d.message);
        if (!name || !may_name(*name, w.file)) continue;
        named = true;
        added.push_back({Widening::Scope::native_units, unit->path,
                         "header " + w.file + " is read by no parsed unit, but " + d.file + ":" + std::to_string(d.line) +
                             " includes \"" + *name + "\", which Clang could not find: that unit counts as changed",
                         {}});
        break;
      }
    if (named) continue;
    for (auto& f : changes.files)
      if (f.path == w.file)
        f.note = "a header no parsed translation unit includes at head, not even by a name Clang could not find: "
                 "no compiled code reads it";
  }
  kept.insert(kept.end(), added.begin(), added.end());
  changes.widenings = std::move(kept);
}

}  // namespace fastci::planner
