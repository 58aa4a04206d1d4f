#include "evidence/ingest/gcov_json_document.h"

#include <algorithm>
#include <string>

#include "evidence/ingest/gcov_file_input.h"

namespace fastci::evidence {

util::Result<simdjson::padded_string> load_padded(const std::filesystem::path& file) {
  auto input = FileInput::open(file);
  if (!input) return input.error();
  std::string text;
  std::size_t size = 0;
  for (;;) {
    text.resize(size + (1 << 20));
    auto got = (*input)->read(text.data() + size, 1 << 20);
    if (!got) return got.error();
    if (*got == 0) break;
    size += *got;
  }
  return simdjson::padded_string(text.data(), size);
}

int line_at(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace fastci::evidence
