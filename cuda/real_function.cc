#include "cuda/real_function.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>

namespace fastci::cuda {
namespace {

struct Search {
  const char* prefix;
  const char* name;
  void* found;
};

int search_object(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (!info->dlpi_name || !*info->dlpi_name) return 0;
  const char* base = std::strrchr(info->dlpi_name, '/');
  base = base ? base + 1 : info->dlpi_name;
  if (std::strncmp(base, search->prefix, std::strlen(search->prefix)) != 0) return 0;
  // RTLD_NOLOAD: only a handle to what is already there; the reference it takes is never dropped.
  void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (!handle) return 0;
  search->found = dlsym(handle, search->name);
  return search->found ? 1 : 0;
}

}  // namespace

void* find_real_function(const char* name, const char* library_prefix) noexcept {
  if (void* next = dlsym(RTLD_NEXT, name)) return next;
  Search search{library_prefix, name, nullptr};
  dl_iterate_phdr(search_object, &search);
  return search.found;
}

}  // namespace fastci::cuda
