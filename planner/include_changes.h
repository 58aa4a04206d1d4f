#pragma once
/// Changed `#include` lines of C/C++/CUDA translation units, mapped to the functions they can
/// change instead of to the whole unit: what an added include brings is the declarations of the
/// repository headers the unit reads only since the change, and only the unit's functions that use
/// one of them may now compile differently.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "callgraph/graph.h"
#include "planner/change_set.h"

namespace fastci::planner {

/// An `#include` directive as written.
struct IncludeDirective {
  std::string name;     ///< between the quotes or angle brackets
  bool quoted = false;  ///< "name" (searched beside the file first) rather than <name>
};

/// The directive on a source line, or none when the line is not an `#include`.
std::optional<IncludeDirective> parse_include_directive(std::string_view line);

/// Resolves `changes.includes`: an added include of a repository header makes the functions that
/// use a declaration of a header newly read (the one included and what it brings) count as changed,
/// said in the file's note: in a translation unit, its own functions; in a header, the functions of
/// each unit reading it (`includers`, at head) and the header's own. One of a header already read
/// changes nothing; one the repository does not hold (a system or library header) widens the file,
/// said with the line. A removed include changes nothing by itself: a function that loses a
/// declaration it uses is a Clang error at head, which counts that function as changed
/// (add_functions_with_errors).
void map_include_changes(const FactsLookup& base, const FactsLookup& head,
                         const std::map<std::string, std::set<std::string>>& includers,
                         const callgraph::CallGraph& graph, ChangeSet& changes);

}  // namespace fastci::planner
