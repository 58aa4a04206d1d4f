#pragma once
/// Small helpers over tree-sitter-python nodes, shared by the module parser and the extension reader.

#include <tree_sitter/api.h>

#include <cstring>
#include <string_view>
#include <vector>

namespace fastci::frontend::python {

/// Whether a node has the given grammar type.
inline bool is(TSNode node, const char* type) { return std::strcmp(ts_node_type(node), type) == 0; }

/// 1-based first and last line of a node.
inline int line_of(TSNode node) { return static_cast<int>(ts_node_start_point(node).row) + 1; }
inline int end_line_of(TSNode node) { return static_cast<int>(ts_node_end_point(node).row) + 1; }

/// The grammar's number of a field name (0: no such field). tree-sitter's own lookup by name
/// compares the name with every field's, and the parser asks for a field at most nodes it reads.
TSFieldId field_id(std::string_view name);

/// A named field of a node (null node when absent).
inline TSNode field(TSNode node, const char* name) { return ts_node_child_by_field_id(node, field_id(name)); }

/// Children of a node through a cursor: ts_node_child(i) is linear in i in tree-sitter 0.20.
inline std::vector<TSNode> children(TSNode node, bool named_only = true) {
  std::vector<TSNode> out;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (!named_only || ts_node_is_named(child)) out.push_back(child);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

/// The thread's tree-sitter parser for Python (parsers are not thread-safe; one per thread).
TSParser* thread_parser();

}  // namespace fastci::frontend::python
