#pragma once
/// Links Python to C++: a Python call on an extension module's attribute, on the module an op
/// builder's load() returns, or on torch.ops.<ns>.<op> becomes an edge to the bound C++ function.

#include <string>
#include <vector>

#include "frontend/facts.h"
#include "frontend/python/extension_modules.h"

namespace fastci::callgraph {

/// An extension with the repository files it is built from.
struct ResolvedExtension {
  frontend::python::ExtensionModule module;
  std::vector<std::string> files;  ///< repository paths of its C++/CUDA sources
};

/// Matches each extension's source strings against the tree's C++/CUDA files.
std::vector<ResolvedExtension> resolve_extensions(const std::vector<frontend::python::ExtensionModule>& modules,
                                                  const std::vector<std::string>& native_files);

/// Renames bindings of `TORCH_EXTENSION_NAME` modules after the extensions that build their file
/// (`binding:<extension>.<name>`); bindings of a file no extension lists keep the file in their id.
void name_extension_bindings(std::vector<frontend::FileFacts>& native_files,
                             const std::vector<ResolvedExtension>& extensions);

/// Adds an edge from each Python caller of an extension attribute or torch op to its binding.
/// Returns how many edges it added.
std::size_t link_python_to_bindings(frontend::RepositoryFacts& facts, const std::vector<ResolvedExtension>& extensions);

/// The binding symbol ids a placeholder call text names, if it names an extension or a torch op.
std::vector<std::string> bindings_named_by(const std::string& placeholder_text,
                                           const std::vector<ResolvedExtension>& extensions,
                                           const std::vector<std::string>& binding_ids);

}  // namespace fastci::callgraph
