#include "planner/kernel_evidence.h"

#include <cmath>
#include <set>

namespace fastci::planner {
namespace {

/// log2 class of a product of "x,y,z" dimensions: 0 for empty or unknown.
int magnitude(const std::string& dimensions) {
  if (dimensions.empty()) return 0;
  double product = 1;
  std::size_t start = 0;
  while (start <= dimensions.size()) {
    auto comma = dimensions.find(',', start);
    auto part = dimensions.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    try {
      product *= std::max(1.0, std::stod(part));
    } catch (...) {
      return -1;  // not a number: its own class
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return static_cast<int>(std::log2(product)) + 1;
}

}  // namespace

bool is_native_kernel(frontend::SymbolKind kind, frontend::Language language) {
  return kind == frontend::SymbolKind::kernel && language != frontend::Language::python;
}

bool launches_symbol(const evidence::KernelName& symbol, std::string_view launched_name) {
  auto launched = evidence::parse_kernel_name(launched_name);
  if (symbol.qualified.find('<') != std::string::npos) return launched.qualified == symbol.qualified;
  return launched.base == symbol.base;
}

std::vector<frontend::Symbol> kernels_calling(const callgraph::CallGraph& graph, std::string_view device_function) {
  auto start = graph.find(device_function);
  if (!start || !graph.vertex(*start).symbol.id.starts_with("cuda:")) return {};
  std::vector<frontend::Symbol> kernels;
  std::set<callgraph::VertexId> seen{*start};
  std::vector<callgraph::VertexId> work{*start};
  while (!work.empty()) {
    auto at = work.back();
    work.pop_back();
    for (const auto& edge : graph.dependents(at)) {
      if (!seen.insert(edge.from).second) continue;
      const frontend::Symbol& caller = graph.vertex(edge.from).symbol;
      bool by_call = edge.kind == frontend::EdgeKind::call || edge.kind == frontend::EdgeKind::virtual_call;
      if (by_call && is_native_kernel(caller.kind, caller.language)) {
        kernels.push_back(caller);
        continue;
      }
      // Device code calling it keeps the walk on the device; anything else runs it from the host.
      bool device_caller = caller.id.starts_with("cuda:") &&
                           (caller.kind == frontend::SymbolKind::function || caller.kind == frontend::SymbolKind::method);
      if (!by_call || !device_caller) return {};
      work.push_back(edge.from);
    }
  }
  return kernels;
}

util::Result<std::vector<evidence::StoredKernel>> launches_of(evidence::Store& store,
                                                             const evidence::KernelName& symbol) {
  std::vector<evidence::StoredKernel> out;
  // Names are stored as the collector wrote them: with a return type ("void ns::k<...>(...)") or not.
  for (const std::string& prefix : {symbol.base, "void " + symbol.base}) {
    auto found = store.tests_launching(prefix);
    if (!found.ok()) return found.error();
    for (auto& k : *found)
      if (launches_symbol(symbol, k.launch.name)) out.push_back(std::move(k));
  }
  return out;
}

std::string launch_context_key(const evidence::KernelLaunch& launch) {
  std::string key = "kernel|";
  for (const auto& a : launch.template_arguments) key += a + ",";
  key += "|block " + launch.block + "|grid~2^" + std::to_string(magnitude(launch.grid)) + "|smem~2^" +
         std::to_string(launch.shared_memory == 0 ? 0 : static_cast<int>(std::log2(launch.shared_memory)) + 1);
  return key;
}

}  // namespace fastci::planner
