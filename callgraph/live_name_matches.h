#pragma once
/// Name matches on values a test can hold: `x.name` on a value of unknown type may be any class's
/// `name`, but only on an instance (or the class object) of that class. A class defined inside a
/// function exists only once that function has run; a test that never reaches the function cannot
/// hold one. (A class at module level can be had by reflection, `getattr(module, name)()`, as
/// DeepSpeed's engine makes its LR schedulers: no test is ruled out for it.)

#include <optional>
#include <string>
#include <vector>

#include "callgraph/graph.h"

namespace fastci::callgraph {

/// The class whose member `member` is (a method or a class attribute, by its qualified name), if any.
std::optional<VertexId> class_of_member(const CallGraph& graph, VertexId member);

/// The function a class is defined in (the nearest enclosing one), if it is defined in one.
std::optional<VertexId> defining_function(const CallGraph& graph, VertexId class_vertex);

/// Of the tests that `changed` reaches through a name match (an unresolved `.name` read or call,
/// matched to the member `name` of some class C), the ones that may hold a C: C is not defined in a
/// function, or the test also reaches the function defining it, or code the graph knows no way into
/// (a function stored on an object, an API function) does. Only the first name match on a path from
/// the change is asked about (a path through several needs each; asking one keeps more). A name
/// match into a member of no known class keeps every test it reaches. The tests are test vertices,
/// ascending; tests reached without a name match are not among them.
std::vector<VertexId> tests_with_live_name_matches(const CallGraph& graph, const std::vector<std::string>& changed);

}  // namespace fastci::callgraph
