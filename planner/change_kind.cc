#include "planner/change_kind.h"

#include <array>
#include <string_view>

namespace fastci::planner {
namespace {

using callgraph::CallGraph;
using callgraph::VertexId;

/// A callee's name as the graph holds it: a repository symbol ("py:torch..." never is one) or a
/// placeholder for a library name ("?torch.distributed.all_reduce", "?.float" for x.float()).
std::string_view callee_name(const CallGraph& graph, VertexId v) {
  std::string_view id = graph.vertex(v).symbol.id;
  if (id.starts_with("?")) id.remove_prefix(1);
  else if (id.starts_with("py:")) id.remove_prefix(3);
  return id;
}

std::string_view last_component(std::string_view name) {
  auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

bool is_distributed_api(std::string_view name) {
  return name.starts_with("torch.distributed") || name.starts_with("torch.cuda.nccl.");
}

/// torch APIs whose result depends on precision: casts, autocast, loss scaling, reductions and the
/// numerically delicate functions of training code.
bool is_numerics_api(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kPrefixes = {
      "torch.autocast", "torch.cuda.amp.", "torch.amp.", "torch.nn.functional.", "torch.finfo", "torch.iinfo",
      "torch.linalg.", "torch.special."};
  for (auto p : kPrefixes)
    if (name.starts_with(p)) return true;
  static constexpr std::array<std::string_view, 28> kCalls = {
      "to",      "half",     "float",     "bfloat16",  "double",  "type_as",     "sum",   "mean",     "norm",
      "softmax", "log_softmax", "layer_norm", "rms_norm", "cross_entropy", "clamp", "clamp_", "exp", "log",
      "sqrt",    "rsqrt",    "var",       "std",       "logsumexp", "matmul",   "bmm",   "baddbmm", "addmm",
      "unscale_"};
  std::string_view last = last_component(name);
  bool torch_call = name.starts_with("torch.") || name.starts_with(".");  // ".float" is x.float()
  for (auto c : kCalls)
    if (last == c && torch_call) return true;
  return false;
}

bool calls_distributed(const CallGraph& graph, VertexId v) {
  for (const auto& e : graph.dependencies(v))
    if (e.kind == frontend::EdgeKind::call && is_distributed_api(callee_name(graph, e.to))) return true;
  return false;
}

std::string where(const callgraph::EdgeInfo& e) { return std::string(e.file) + ":" + std::to_string(e.line); }

ChangeKinds kinds_of(const ChangedSymbol& s, const CallGraph& graph) {
  ChangeKinds k;
  k.kernel = s.kind == frontend::SymbolKind::kernel || s.language == frontend::Language::cuda;
  if (k.kernel) k.why = "a CUDA kernel or device code";
  auto v = graph.find(s.id);
  if (!v) return k;
  for (const auto& e : graph.dependencies(*v)) {
    // A reference to a repository function: a decorated name (the call runs the decorator's
    // wrapper, which runs the function) or a callback handed on; what it calls still runs.
    const bool referenced = e.kind == frontend::EdgeKind::reference;
    if (e.kind != frontend::EdgeKind::call && e.kind != frontend::EdgeKind::virtual_call && !referenced) continue;
    std::string_view name = callee_name(graph, e.to);
    bool repository = !graph.vertex(e.to).symbol.id.starts_with("?");
    if (referenced && !repository) continue;
    if (!k.parallel && (is_distributed_api(name) || (repository && calls_distributed(graph, e.to)))) {
      k.parallel = true;
      k.why += std::string(k.why.empty() ? "" : "; ") + (referenced ? "references " : "calls ") + std::string(name) +
               (repository ? " (which calls torch.distributed)" : "") + " at " + where(e);
    }
    if (referenced) continue;
    if (!k.numerics && is_numerics_api(name)) {
      k.numerics = true;
      k.why += std::string(k.why.empty() ? "" : "; ") + "calls " + std::string(name) + " at " + where(e);
    }
  }
  if (s.language != frontend::Language::python && !k.kernel) {
    // Native host code: a kernel when it launches one (a launch edge), else plain native code.
    for (const auto& e : graph.dependencies(*v))
      if (e.kind == frontend::EdgeKind::kernel_launch) {
        k.kernel = true;
        k.why += std::string(k.why.empty() ? "" : "; ") + "launches " + graph.vertex(e.to).symbol.qualified_name;
        break;
      }
  }
  return k;
}

}  // namespace

std::map<std::string, ChangeKinds> change_kinds(const std::vector<ChangedSymbol>& changed, const CallGraph& head,
                                                const CallGraph* base) {
  std::map<std::string, ChangeKinds> out;
  for (const auto& s : changed)
    out[s.id] = kinds_of(s, s.change == SymbolChange::deleted && base ? *base : head);
  return out;
}

}  // namespace fastci::planner
