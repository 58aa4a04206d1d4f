#pragma once
/// Finding the function an interposed symbol hides.

namespace fastci::cuda {

/// Address of the next definition of `name` after this library: dlsym(RTLD_NEXT) first, then any
/// loaded object whose file name starts with `library_prefix` (a library dlopen()ed with RTLD_LOCAL,
/// as Python extension modules pull in libcudart, is invisible to RTLD_NEXT). Null when not loaded.
void* find_real_function(const char* name, const char* library_prefix) noexcept;

}  // namespace fastci::cuda
