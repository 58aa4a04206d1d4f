#pragma once
/// What kind of change a changed symbol is, from what it is and what its body calls, not from its
/// name ("comm" in deepspeed.comm is not parallelism, "norm" in a config field is not numerics):
/// kernel or native code from its kind and language; parallelism from calls into torch.distributed
/// or into a repository function that calls torch.distributed (the framework's comm layer);
/// numerics from calls of dtype casts, autocast, loss scaling, reductions and normalizations.

#include <map>
#include <string>
#include <vector>

#include "callgraph/graph.h"
#include "planner/change_set.h"

namespace fastci::planner {

/// The change-kind risk features of one changed symbol, each with the call that decided it.
struct ChangeKinds {
  bool kernel = false;
  bool numerics = false;
  bool parallel = false;
  std::string why;  ///< "calls torch.distributed.all_reduce at deepspeed/comm/torch.py:156", ...
};

/// Kinds of every changed symbol, by id, from the head graph (the base graph for deleted ones).
std::map<std::string, ChangeKinds> change_kinds(const std::vector<ChangedSymbol>& changed,
                                                const callgraph::CallGraph& head,
                                                const callgraph::CallGraph* base);

}  // namespace fastci::planner
