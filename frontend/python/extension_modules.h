#pragma once
/// Native extension modules a Python source declares: setup.py CUDAExtension/CppExtension,
/// torch.utils.cpp_extension.load/load_inline calls (also through a local helper), and op-builder
/// classes (DeepSpeed's op_builder: NAME, sources(), absolute_name()).

#include <string>
#include <string_view>
#include <vector>

namespace fastci::frontend::python {

/// One extension: the import name Python uses and the C++/CUDA sources it is built from.
struct ExtensionModule {
  std::string name;                  ///< module name the build gives it (TORCH_EXTENSION_NAME)
  std::string absolute_name;         ///< installed import path when it differs (deepspeed.ops.adam.cpu_adam_op)
  std::string builder_class;         ///< op-builder class whose load() returns the module; may be empty
  std::vector<std::string> sources;  ///< source strings as written (literal path parts)
  std::string file;                  ///< the Python file that declares it
  int line = 0;
};

/// Whether a Python file may declare extensions (checked before reading it).
bool may_declare_extensions(std::string_view path, std::string_view source);

/// Extensions declared in one Python source; best effort: unreadable parts are skipped.
std::vector<ExtensionModule> find_extension_modules(std::string_view path, std::string_view source);

/// Repository files an extension's source strings name: exact repository paths, paths relative to
/// the declaring file's folder, else every file whose path ends with the string.
std::vector<std::string> resolve_extension_sources(const ExtensionModule& extension,
                                                   const std::vector<std::string>& native_files);

}  // namespace fastci::frontend::python
