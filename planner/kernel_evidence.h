#pragma once
/// Kernel launches as evidence for a changed `__global__` function: which tests launched it (Kineto,
/// Nsight Systems or the launch interposer, by name), and the launch's context for pruning.

#include <string>
#include <string_view>
#include <vector>

#include "callgraph/graph.h"
#include "evidence/kernel_name.h"
#include "evidence/store/store.h"
#include "frontend/facts.h"

namespace fastci::planner {

/// Whether a changed symbol is a C++/CUDA kernel whose launches the evidence can show.
bool is_native_kernel(frontend::SymbolKind kind, frontend::Language language);

/// Whether a launched kernel's name is this kernel symbol: the same instantiation where the symbol
/// names one ("k<float, 4>"), any instantiation of a template or a plain kernel otherwise.
bool launches_symbol(const evidence::KernelName& symbol, std::string_view launched_name);

/// The kernels through which alone a `__device__` function runs: every caller, transitively through
/// other device functions, is a kernel. Empty where host code calls it (a `__host__ __device__`
/// helper, a function pointer taken on the host) or nothing does: launches cannot speak for it then.
std::vector<frontend::Symbol> kernels_calling(const callgraph::CallGraph& graph, std::string_view device_function);

/// Every recorded launch of the kernel, newest run first.
util::Result<std::vector<evidence::StoredKernel>> launches_of(evidence::Store& store,
                                                             const evidence::KernelName& symbol);

/// The context of one launch configuration: template arguments, block, and the orders of magnitude
/// of grid and shared memory (a size that changes the grid by a few blocks launches the same code).
std::string launch_context_key(const evidence::KernelLaunch& launch);

}  // namespace fastci::planner
