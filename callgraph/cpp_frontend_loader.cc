#include "callgraph/cpp_frontend_loader.h"

#include <dlfcn.h>

#include <string>

#include "util/data_dir.h"

namespace fastci::callgraph {
namespace {

using frontend::cpp::FrontendPlugin;

util::Result<const FrontendPlugin*> load() {
  // lib/fastci/ beside an installed binary, the target's own folder for one in the build tree.
  const util::DataFolder folder{FASTCI_PLUGINS_FROM_BINARY, FASTCI_CPP_FRONTEND_BUILD_DIR};
  const std::string path = (util::data_dir(folder) / FASTCI_CPP_FRONTEND_FILE).string();
  // RTLD_LOCAL: Clang's and LLVM's symbols stay the plugin's; never unloaded (its facts' types are ours).
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* error = ::dlerror();
    std::string why = error ? error : "unknown error";
    if (why.starts_with(path + ": ")) why.erase(0, path.size() + 2);  // the error names the file first
    return util::Error{"cannot load the C++/CUDA frontend: " + why, path};
  }
  using Entry = const FrontendPlugin* (*)();
  auto entry = reinterpret_cast<Entry>(::dlsym(handle, frontend::cpp::kFrontendPluginEntry));
  const FrontendPlugin* plugin = entry ? entry() : nullptr;
  if (!plugin || plugin->version != frontend::cpp::kFrontendPluginVersion || !plugin->parse_translation_units)
    return util::Error{"the C++/CUDA frontend there is not this build's (reinstall fastci)", path};
  return plugin;
}

}  // namespace

util::Result<const FrontendPlugin*> cpp_frontend() {
  static const util::Result<const FrontendPlugin*> loaded = load();  // thread-safe, once
  return loaded;
}

}  // namespace fastci::callgraph
