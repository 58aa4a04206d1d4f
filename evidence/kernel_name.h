#pragma once
/// Kernel names as the collectors report them (Kineto and Nsight Systems: demangled with the return
/// type and parameters; the launch interposer: mangled or demangled), reduced to the name a
/// repository's `__global__` function has in the call graph, and classified by where the kernel
/// comes from: PyTorch's own kernels, vendor libraries and generated code are never a repository's.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fastci::evidence {

/// Where a launched kernel's code comes from, as far as its name tells.
enum class KernelOrigin {
  aten,      ///< PyTorch's ATen/c10 kernels (at::, c10::, PyTorch's anonymous-namespace softmax)
  cublas,    ///< cuBLAS / cuBLASLt / rocBLAS-hipBLASLt Tensile GEMM and GEMV kernels
  cudnn,     ///< cuDNN convolution, FFT and layout kernels
  cutlass,   ///< CUTLASS templates and the libraries that ship them
  nccl,      ///< NCCL / RCCL collectives
  triton,    ///< Triton-generated kernels (torch.compile / inductor)
  library,   ///< other known libraries (fbgemm_gpu, CUB, Thrust)
  unattributed  ///< none of the above: the repository's own kernels are among these
};

/// A kernel name reduced for matching.
struct KernelName {
  std::string qualified;  ///< namespace-qualified with template arguments: "ns::k<float, 4>"
  std::string base;       ///< without template arguments: "ns::k"
  KernelOrigin origin = KernelOrigin::unattributed;
};

/// Demangles an Itanium name ("_Z..."), drops the return type and parameter list, and normalizes
/// spaces inside template arguments ("unsigned int" stays, "float *" -> "float*", "> >" -> ">>").
KernelName parse_kernel_name(std::string_view raw);

/// "ns::k<float, 4>(float *, int)" as the C++ frontend names a kernel symbol (its id without the
/// "cuda:" prefix), reduced the same way, so that both sides compare equal.
KernelName kernel_symbol_name(std::string_view qualified_name);

const char* to_string(KernelOrigin origin);

/// For `fastci evidence stats`: launched kernel names (name, launches) counted by origin, and the
/// unattributed ones listed (the most launched first, at most `listed`): among them are the
/// repository's own kernels, which the plan maps to its changed `__global__` symbols by name.
std::string format_kernel_origins(const std::vector<std::pair<std::string, std::uint64_t>>& names,
                                  std::size_t listed = 20);

}  // namespace fastci::evidence
