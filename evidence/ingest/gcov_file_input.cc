#include "evidence/ingest/gcov_file_input.h"

#include <zlib.h>

#include <cstring>
#include <optional>

namespace fastci::evidence {

namespace {

constexpr std::size_t kLineChunk = 1 << 16;
// A line longer than this is not a text record of any format we read: refuse instead of growing.
constexpr std::size_t kMaxLine = 64 << 20;

gzFile as_gz(void* handle) { return static_cast<gzFile>(handle); }

}  // namespace

util::Result<std::unique_ptr<FileInput>> FileInput::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return util::Error{"is a directory, expected a file", path.string(), 0};
  }
  gzFile handle = gzopen(path.c_str(), "rb");
  if (handle == nullptr) {
    return util::Error{std::string("cannot open: ") + std::strerror(errno), path.string(), 0};
  }
  gzbuffer(handle, 1 << 18);
  return std::unique_ptr<FileInput>(new FileInput(path, handle));
}

FileInput::~FileInput() { gzclose(as_gz(handle_)); }

util::Result<std::size_t> FileInput::read(char* buffer, std::size_t capacity) {
  const auto limit = static_cast<unsigned>(std::min<std::size_t>(capacity, 1u << 30));
  const int got = gzread(as_gz(handle_), buffer, limit);
  int code = Z_OK;
  const char* message = gzerror(as_gz(handle_), &code);
  // zlib reports a truncated gzip stream as Z_BUF_ERROR after returning what it could inflate.
  if (got < 0 || (code != Z_OK && code != Z_STREAM_END)) {
    return util::Error{std::string("cannot read (corrupt or truncated gzip data?): ") +
                           (message != nullptr ? message : "read error"),
                       path_.string(), 0};
  }
  return static_cast<std::size_t>(got);
}

util::Result<std::unique_ptr<LineInput>> LineInput::open(const std::filesystem::path& path) {
  auto input = FileInput::open(path);
  if (!input) return input.error();
  return std::unique_ptr<LineInput>(new LineInput(std::move(*input)));
}

bool LineInput::refill() {
  if (at_end_) return false;
  buffer_.erase(0, position_);
  position_ = 0;
  const std::size_t old_size = buffer_.size();
  buffer_.resize(old_size + kLineChunk);
  auto got = input_->read(buffer_.data() + old_size, kLineChunk);
  if (!got) {
    buffer_.resize(old_size);
    error_ = got.error();
    error_->line = line_number_ + 1;
    at_end_ = true;
    return false;
  }
  buffer_.resize(old_size + *got);
  if (*got == 0) at_end_ = true;
  return *got > 0;
}

bool LineInput::next(std::string_view& line) {
  std::size_t searched = position_;
  for (;;) {
    const auto newline = buffer_.find('\n', searched);
    if (newline != std::string::npos) {
      std::size_t end = newline;
      if (end > position_ && buffer_[end - 1] == '\r') --end;
      line = std::string_view(buffer_).substr(position_, end - position_);
      position_ = newline + 1;
      ++line_number_;
      return true;
    }
    searched = buffer_.size();
    if (buffer_.size() - position_ > kMaxLine) {
      error_ = util::Error{"line longer than 64 MiB; not a text evidence file",
                           input_->path().string(), line_number_ + 1};
      return false;
    }
    const std::size_t before = position_;
    if (!refill()) {
      if (error_) return false;
      if (buffer_.size() > position_) {  // last line without a newline
        std::size_t end = buffer_.size();
        if (buffer_[end - 1] == '\r') --end;
        line = std::string_view(buffer_).substr(position_, end - position_);
        position_ = buffer_.size();
        ++line_number_;
        return true;
      }
      return false;
    }
    searched -= before;  // refill() moved the unread bytes to the front
  }
}

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string inflate_head(std::string_view head) {
  if (!is_gzip(head)) return std::string(head);
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return {};
  std::string out(std::max<std::size_t>(head.size() * 8, 4096), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(head.data()));
  stream.avail_in = static_cast<uInt>(head.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  inflate(&stream, Z_SYNC_FLUSH);  // a prefix ends mid-stream: keep whatever came out
  out.resize(out.size() - stream.avail_out);
  inflateEnd(&stream);
  return out;
}

}  // namespace fastci::evidence
