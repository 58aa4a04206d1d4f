#pragma once
/// Turning the mangled device names that CUDA registers into evidence names.

#include <string>
#include <string_view>
#include <vector>

namespace fastci::cuda {

/// A kernel name as evidence records it.
struct KernelName {
  std::string mangled;                          ///< as registered ("_Z5scaleIfLi4EEvPT_S0_")
  std::string demangled;                        ///< "void scale<float, 4>(float*, float)"; mangled when not C++
  std::string function;                         ///< qualified name without template arguments ("scale")
  std::vector<std::string> template_arguments;  ///< {"float", "4"}
};

/// Demangles an Itanium C++ symbol; returns the input unchanged when it is not one.
std::string demangle(std::string_view mangled);

/// Template arguments of the function a demangled signature names, outermost list only.
std::vector<std::string> template_arguments(std::string_view demangled);

/// Qualified function name of a demangled signature, without return type, template arguments and
/// parameters ("void ns::f<int>(int)" -> "ns::f").
std::string function_name(std::string_view demangled);

/// All of the above for one registered name.
KernelName describe_kernel(std::string_view mangled);

}  // namespace fastci::cuda
