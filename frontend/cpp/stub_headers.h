#pragma once
/// The stub header pack (frontend/cpp/stubs) compiled into the binary: stand-ins for torch,
/// ATen, c10 and pybind11 headers, served to Clang from memory.

#include <string_view>
#include <vector>

namespace fastci::frontend::cpp {

/// One stub header: its include path ("torch/extension.h") and its text.
struct StubHeader {
  std::string_view path;
  std::string_view contents;
};

/// Every stub header, sorted by path.
const std::vector<StubHeader>& stub_headers();

/// The directory the stubs appear under in Clang's virtual file system.
inline constexpr std::string_view kStubDirectory = "/fastci-stub-headers";

}  // namespace fastci::frontend::cpp
