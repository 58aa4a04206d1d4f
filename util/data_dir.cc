#include "util/data_dir.h"

#include <system_error>

#include "util/file.h"

namespace fastci::util {

namespace fs = std::filesystem;

DataFolder workload_data() { return {FASTCI_WORKLOAD_DATA_FROM_BINARY, FASTCI_WORKLOAD_DATA_SOURCE_DIR}; }

fs::path data_dir(const DataFolder& folder, const fs::path& executable, const fs::path& build_dir) {
  const fs::path installed = (executable.parent_path() / folder.from_binary).lexically_normal();
  std::error_code error;
  // Installed first: a prefix inside the build folder (cmake --install build --prefix build/x) is an install.
  if (fs::is_directory(installed, error)) return installed;
  if (!build_dir.empty() && is_inside(build_dir, executable)) return folder.source;
  return installed;
}

fs::path data_dir(const DataFolder& folder) {
  std::error_code error;
  // The kernel's link names the binary itself, with every symlink on the way resolved (a bin/ symlink to an
  // installed fastci still finds that installation's share/).
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (error) return folder.source;  // no procfs: nothing to be relative to
  return data_dir(folder, executable, FASTCI_BUILD_DIR);
}

}  // namespace fastci::util
