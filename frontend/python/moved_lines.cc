#include "frontend/python/moved_lines.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace fastci::frontend::python {
namespace {

/// Visits every line field of a record: the one list of where a record keeps positions, for both
/// the comparison and the map.
template <class Record, class Visit>
void each_line(Record& record, Visit&& visit) {
  auto& facts = record.facts;
  // The module's own symbol spans the file (first line 1, last line its end): no line moved there.
  for (std::size_t i = 1; i < facts.symbols.size(); ++i) {
    visit(facts.symbols[i].first_line);
    visit(facts.symbols[i].last_line);
  }
  for (auto& e : facts.edges) visit(e.line);
  for (auto& l : facts.launches) visit(l.line);
  for (auto& b : facts.bindings) visit(b.line);
  for (auto& t : facts.tests) {
    visit(t.line);
    for (auto& k : t.knobs) visit(k.line);
  }
  for (auto& d : facts.diagnostics) visit(d.line);
  auto binding_lines = [&](auto& bindings) {
    for (auto& b : bindings) {
      visit(b.line);
      visit(b.statement_first);
      visit(b.statement_last);
    }
  };
  for (std::size_t i = 0; i < record.scopes.size(); ++i) {
    auto& scope = record.scopes[i];
    if (i > 0) visit(scope.line);  // the module's scope, as its symbol, starts at line 1 whatever moves
    binding_lines(scope.bindings);
    binding_lines(scope.instance_attributes);
    for (auto& mark : scope.marks) {
      visit(mark.line);
      if (mark.parametrize) visit(mark.parametrize->line);
    }
  }
  for (auto& r : record.references) visit(r.line);
  for (auto& e : record.extensions) visit(e.line);
}

/// "#i:1" as "#", "k=#s:x" as "k=#": a literal whose value linking does not read.
void drop_literal_value(std::string& text) {
  const auto value = argument_value(text);
  if (is_literal(value)) text.resize(text.size() - value.size() + 1);
}

/// The values of the literals linking does not read (ConstantReads) dropped from a record.
void drop_literal_values(ModuleRecord& record, const ConstantReads& reads) {
  auto unread = [&](const std::string& name) {
    return !std::binary_search(reads.names.begin(), reads.names.end(), name);
  };
  auto bindings = [&](std::vector<NameBinding>& all) {
    for (auto& b : all)
      if ((b.kind == NameBinding::Kind::other || b.kind == NameBinding::Kind::parameter) && unread(b.name))
        drop_literal_value(b.kind == NameBinding::Kind::other ? b.target : b.member);
  };
  for (auto& scope : record.scopes) {
    bindings(scope.bindings);
    bindings(scope.instance_attributes);
  }
  if (!reads.call_arguments)
    for (auto& r : record.references)
      for (auto& argument : r.arguments) drop_literal_value(argument);
}

/// The record with every line and hash zeroed: what the linker reads but positions.
std::string without_positions(ModuleRecord record, const ConstantReads* reads) {
  if (reads && reads->known) drop_literal_values(record, *reads);
  record.facts.content_hash.clear();
  if (!record.scopes.empty()) record.scopes[0].line = 0;
  for (auto& s : record.facts.symbols) {
    s.body_hash = s.doc_hash = s.fields_hash = 0;
    s.first_line = s.last_line = 0;
  }
  each_line(record, [](int& line) { line = 0; });
  return serialize(record);
}

std::vector<int> lines_of(const ModuleRecord& record) {
  std::vector<int> out;
  each_line(record, [&](const int& line) { out.push_back(line); });
  return out;
}

}  // namespace

std::optional<LineMap> moved_lines(const ModuleRecord& before, const ModuleRecord& after, const ConstantReads* reads) {
  if (before.facts.path != after.facts.path || without_positions(before, reads) != without_positions(after, reads))
    return std::nullopt;
  const auto old_lines = lines_of(before);
  const auto new_lines = lines_of(after);
  if (old_lines.size() != new_lines.size()) return std::nullopt;
  LineMap map{{0, 0}};
  for (std::size_t i = 0; i < old_lines.size(); ++i) {
    auto [at, fresh] = map.emplace(old_lines[i], new_lines[i]);
    if (!fresh && at->second != new_lines[i]) return std::nullopt;  // one old line, two new ones
  }
  // Increasing: comparisons between lines of the file (flow order) give what they gave before.
  int previous = -1;
  for (const auto& [from, to] : map) {
    if (to <= previous || (from == 0) != (to == 0)) return std::nullopt;
    previous = to;
  }
  return map;
}

bool move_linked_lines(LinkedTree& tree, const ModuleRecord& after, const LineMap& lines) {
  if (!after.extensions.empty()) return false;
  const std::string& path = after.facts.path;
  for (const auto& e : tree.extensions)
    if (e.file == path) return false;
  bool complete = true;
  auto move = [&](int& line) {
    auto found = lines.find(line);
    if (found == lines.end()) complete = false;
    else line = found->second;
  };
  auto move_in = [&](const std::string& file, int& line) {
    if (file == path) move(line);
  };
  FileFacts* own = nullptr;
  for (auto& file : tree.facts.files) {
    const bool is_own = file.path == path;
    if (is_own) own = &file;
    for (auto& e : file.edges) move_in(e.file.empty() ? file.path : e.file, e.line);
    for (auto& t : file.tests) {
      move_in(t.file, t.line);
      for (auto& k : t.knobs) move_in(k.file, k.line);
    }
    for (auto& d : file.diagnostics) move_in(d.file.empty() ? file.path : d.file, d.line);
  }
  for (auto& d : tree.facts.diagnostics) move_in(d.file, d.line);
  if (!own || !complete) return false;
  // The symbols are the record's as linking left them (test discovery marks tests): their lines
  // and hashes are the new record's; what linking added (edges, tests, diagnostics) stays, moved.
  if (own->symbols.size() != after.facts.symbols.size()) return false;
  for (std::size_t i = 0; i < own->symbols.size(); ++i) {
    Symbol& symbol = own->symbols[i];
    const Symbol& now = after.facts.symbols[i];
    if (symbol.id != now.id) return false;
    symbol.first_line = now.first_line;
    symbol.last_line = now.last_line;
    symbol.body_hash = now.body_hash;
    symbol.doc_hash = now.doc_hash;
    symbol.fields_hash = now.fields_hash;
  }
  own->content_hash = after.facts.content_hash;
  own->launches = after.facts.launches;
  own->bindings = after.facts.bindings;
  return true;
}

}  // namespace fastci::frontend::python
