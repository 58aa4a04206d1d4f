#include "evidence/kernel_name.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "evidence/ingest/kineto_kernels.h"

namespace fastci::evidence {
namespace {

/// Index of the '(' opening the parameter list: the first '(' at template depth 0 that is not part
/// of "(anonymous namespace)" or an operator name.
std::size_t parameters_start(std::string_view s) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<') ++depth;
    else if (c == '>' && depth > 0) --depth;
    else if (c == '(' && depth == 0) {
      if (s.substr(i).starts_with("(anonymous namespace)")) {
        i += std::string_view("(anonymous namespace)").size() - 1;
        continue;
      }
      if (i >= 8 && s.substr(i - 8, 8) == "operator") continue;
      return i;
    }
  }
  return std::string_view::npos;
}

/// Start of the name after a return type: the last space at template and paren depth 0 before the
/// parameter list ("void ns::k<a b>" -> "ns::k<a b>").
std::size_t name_start(std::string_view s) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(') ++depth;
    else if ((c == '>' || c == ')') && depth > 0) --depth;
    else if (c == ' ' && depth == 0 && !(s.substr(i + 1).starts_with("namespace)"))) start = i + 1;
  }
  return start;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// One space between words ("unsigned int", "anonymous namespace"), one after each comma (as Clang
/// and the demangler both print arguments), none elsewhere ("float *" -> "float*", "> >" -> ">>").
std::string normalize_spaces(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != ' ') {
      out += s[i];
      if (s[i] == ',') out += ' ';
      continue;
    }
    std::size_t next = s.find_first_not_of(' ', i);
    if (next == std::string_view::npos) break;
    if (!out.empty() && word_char(out.back()) && word_char(s[next])) out += ' ';
    i = next - 1;
  }
  return out;
}

std::string without_template_arguments(std::string_view s) {
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '<') ++depth;
    else if (c == '>' && depth > 0) --depth;
    else if (depth == 0) out += c;
  }
  return out;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

KernelOrigin origin_of(std::string_view full, std::string_view qualified) {
  if (qualified.starts_with("nccl") || qualified.starts_with("rccl")) return KernelOrigin::nccl;
  if (qualified.starts_with("triton_") || qualified.starts_with("triton::")) return KernelOrigin::triton;
  if (contains(qualified, "cutlass")) return KernelOrigin::cutlass;
  if (contains(full, "cudnn") || contains(full, "kernel_conv_params") || contains(full, "kernel_grad_params") ||
      qualified.starts_with("fft2d_") || qualified.starts_with("fft3d_") || contains(qualified, "convolve_sgemm") ||
      contains(qualified, "wgrad_alg") || contains(qualified, "dgrad_alg"))
    return KernelOrigin::cudnn;
  if (contains(full, "cublas") || qualified.starts_with("Cijk_") || contains(qualified, "_sgemm_") ||
      contains(qualified, "_hgemm_") || contains(qualified, "_gcgemm_") || contains(qualified, "_s16816gemm") ||
      contains(qualified, "xmma_gemm") || qualified.starts_with("sgemm_") || qualified.starts_with("gemv") ||
      qualified.starts_with("gemmk1_") || qualified.starts_with("gemmSN_") || contains(qualified, "splitKreduce") ||
      qualified.starts_with("scal_kernel") || qualified.starts_with("internal::gemvx::") ||
      qualified.starts_with("epilogue::impl::") ||
      qualified.starts_with("nvjet_"))  // cuBLAS 12.9+'s GEMM kernels on Hopper and Blackwell
    return KernelOrigin::cublas;
  if (qualified.starts_with("at::") || qualified.starts_with("c10::") || contains(full, "at::native::") ||
      qualified.starts_with("at_cuda_detail::") ||  // ATen's own copy of CUB
      qualified.starts_with("cunn_") ||             // ATen's loss kernels kept from THCUNN
      // ATen's persistent softmax and range kernels live in a top-level anonymous namespace
      qualified.starts_with("(anonymous namespace)::softmax_warp_") ||
      qualified.starts_with("(anonymous namespace)::elementwise_kernel_with_index"))
    return KernelOrigin::aten;
  if (qualified.starts_with("fbgemm_gpu::") || qualified.starts_with("split_embedding_") ||
      contains(full, "fbgemm") || qualified.starts_with("cub::") || qualified.starts_with("thrust::"))
    return KernelOrigin::library;
  return KernelOrigin::unattributed;
}

}  // namespace

KernelName parse_kernel_name(std::string_view raw) {
  std::string full = demangle_kernel_name(raw);
  std::string_view view(full);
  auto open = parameters_start(view);
  std::string_view head = open == std::string_view::npos ? view : view.substr(0, open);
  head = head.substr(name_start(head));
  KernelName out;
  out.qualified = normalize_spaces(head);
  out.base = without_template_arguments(out.qualified);
  out.origin = origin_of(full, out.qualified);
  return out;
}

KernelName kernel_symbol_name(std::string_view qualified_name) {
  if (qualified_name.starts_with("cuda:")) qualified_name.remove_prefix(5);
  KernelName out = parse_kernel_name(qualified_name);
  out.origin = KernelOrigin::unattributed;  // the repository's own, by definition
  return out;
}

const char* to_string(KernelOrigin origin) {
  switch (origin) {
    case KernelOrigin::aten: return "aten";
    case KernelOrigin::cublas: return "cublas";
    case KernelOrigin::cudnn: return "cudnn";
    case KernelOrigin::cutlass: return "cutlass";
    case KernelOrigin::nccl: return "nccl";
    case KernelOrigin::triton: return "triton";
    case KernelOrigin::library: return "library";
    case KernelOrigin::unattributed: return "unattributed";
  }
  return "unattributed";
}

std::string format_kernel_origins(const std::vector<std::pair<std::string, std::uint64_t>>& names, std::size_t listed) {
  std::map<KernelOrigin, std::size_t> by_origin;
  std::map<std::string, std::uint64_t> unattributed;  // reduced name -> launches
  for (const auto& [name, launches] : names) {
    auto parsed = parse_kernel_name(name);
    ++by_origin[parsed.origin];
    if (parsed.origin == KernelOrigin::unattributed) unattributed[parsed.qualified] += launches;
  }
  std::ostringstream out;
  out << "  kernel names:  " << names.size();
  const char* separator = " (";
  for (const auto& [origin, count] : by_origin) {
    out << separator << to_string(origin) << " " << count;
    separator = ", ";
  }
  out << (by_origin.empty() ? "" : ")") << "\n";
  if (unattributed.empty()) return out.str();
  std::vector<std::pair<std::string, std::uint64_t>> sorted(unattributed.begin(), unattributed.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  out << "  unattributed kernels (no known library; the repository's own map to its __global__ symbols):\n";
  for (std::size_t i = 0; i < sorted.size() && i < listed; ++i)
    out << "    " << sorted[i].first << "  (" << sorted[i].second << " launches)\n";
  if (sorted.size() > listed) out << "    ... and " << sorted.size() - listed << " more\n";
  return out.str();
}

}  // namespace fastci::evidence
