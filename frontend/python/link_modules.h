#pragma once
/// Repository-wide linking of parsed Python modules into resolved facts.

#include <map>
#include <vector>

#include "frontend/facts.h"
#include "frontend/python/module_record.h"
#include "frontend/python/resolver.h"

namespace fastci::frontend::python {

/// Resolves every raw reference into Edge::to symbol ids, one FileFacts per module (same order):
/// call edges (constructors to __init__ and the class), virtual_call edges to overriders in
/// subclasses for calls on self/cls, decorates and reference (callback) edges, contains edges
/// (module -> top-level definitions, class -> methods), import edges between repository modules,
/// override edges (base method -> overriding method), pytest tests with fixture edges.
/// Unresolved and external calls become placeholders "?<dotted text>" ("?torch.cat").
/// `package_aliases` (dotted package -> package it links to) come from directory symlinks inside the repository.
/// `release`: false where the process ends soon after; the resolver's memo is then left to the exit
/// instead of freed here (on Megatron-LM freeing it costs a tenth of a warm run); the records are freed.
/// `order`: the order the modules' references are linked in, which the edges must not depend on
/// (tests link both ways; the edges of each file then come in another order).
/// `stats`, where given, receives what keeping the answers independent of that order took.
enum class LinkOrder { as_given, reversed };
RepositoryFacts link_modules(std::vector<ModuleRecord> modules,
                             const std::map<std::string, std::string>& package_aliases = {}, bool release = true,
                             LinkOrder order = LinkOrder::as_given, Resolver::OrderIndependenceStats* stats = nullptr);

}  // namespace fastci::frontend::python
