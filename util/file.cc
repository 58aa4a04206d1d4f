#include "util/file.h"

#include <fstream>
#include <sstream>

namespace fastci::util {

Result<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open file", path.string()};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Error{"read error", path.string()};
  return buffer.str();
}

Status write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return Error{"cannot write file", temporary.string()};
    std::error_code ignored;
    try {
      write(out);
    } catch (...) {
      out.close();
      std::filesystem::remove(temporary, ignored);
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(temporary, ignored);
      return Error{"write error", temporary.string()};
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) return Error{"cannot rename into place: " + ec.message(), path.string()};
  return {};
}

Status write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  return write_file_atomically(
      path, [content](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); });
}

Status copy_file_atomically(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) return Error{"cannot open file", from.string()};
  // Inserting an empty stream buffer sets failbit: an empty file is copied by writing nothing.
  return write_file_atomically(to, [&in](std::ostream& out) {
    if (in.peek() != std::char_traits<char>::eof()) out << in.rdbuf();
  });
}

bool is_inside(const std::filesystem::path& root, const std::filesystem::path& path) {
  std::error_code ec;
  auto canonical_root = std::filesystem::weakly_canonical(root, ec);
  if (ec) return false;
  auto canonical_path = std::filesystem::weakly_canonical(path, ec);
  if (ec) return false;
  auto [root_end, unused] =
      std::mismatch(canonical_root.begin(), canonical_root.end(), canonical_path.begin(),
                    canonical_path.end());
  return root_end == canonical_root.end();
}

bool is_valid_utf8(std::string_view bytes) {
  std::size_t i = 0;
  while (i < bytes.size()) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (c == 0) return false;
    int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (extra < 0 || i + extra >= bytes.size() + (extra == 0 ? 1 : 0)) return false;
    for (int k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(bytes[i + k]) >> 6) != 0x2) return false;
    }
    i += static_cast<std::size_t>(extra) + 1;
  }
  return true;
}

}  // namespace fastci::util
