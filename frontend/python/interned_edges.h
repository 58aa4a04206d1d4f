#pragma once
/// Edges made while linking, kept as the resolver's interned numbers until it is done with the
/// records: the symbol-id strings of several hundred thousand edges are made once the memo and the
/// records are freed, so that the two are never held together (the linking peak).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/facts.h"

namespace fastci::frontend::python {

/// One edge of a file, its ends as numbers of Resolver::intern.
struct InternedEdge {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  int line = 0;
  EdgeKind kind = EdgeKind::call;
};

/// The linked edges of every file, in the order they were made.
class InternedEdges {
 public:
  explicit InternedEdges(std::size_t files) : by_file_(files) {}
  /// An edge of files[file] (its Edge::file left empty: the edge is in its own file's facts).
  void add(std::size_t file, std::uint32_t from, std::uint32_t to, EdgeKind kind, int line) {
    by_file_[file].push_back({from, to, line, kind});
  }
  /// Appends each file's edges, as strings (`texts[number]`), after the edges files[i] holds; frees itself.
  void expand_into(std::vector<FileFacts>& files, const std::vector<const std::string*>& texts);

 private:
  std::vector<std::vector<InternedEdge>> by_file_;
};

}  // namespace fastci::frontend::python
