#include "evidence/ingest/kineto_event_stream.h"

#include <string>
#include <vector>

namespace fastci::evidence {

namespace {

constexpr std::size_t kChunk = 1 << 20;
constexpr std::size_t kMaxEvent = 256 << 20;  // one event larger than this is not a trace event
constexpr std::size_t kMaxDepth = 4096;

/// A table of the bytes that end a fast skip.
struct ByteSet {
  constexpr ByteSet(std::string_view bytes) {
    for (const char c : bytes) member[static_cast<unsigned char>(c)] = true;
  }
  constexpr bool operator[](unsigned char c) const { return member[c]; }
  bool member[256] = {};
};

constexpr ByteSet kStringStop(std::string_view("\"\\\n"));
constexpr ByteSet kEventStop(std::string_view("\"{}[]\n"));

/// The scanner's state; lives across chunks.
class Scanner {
 public:
  Scanner(const std::string& file, const TraceEventCallback& on_event) : file_(file), on_event_(on_event) {}

  util::Status scan(const char* data, std::size_t size) {
    capture_from_ = capturing_ ? 0 : npos;
    for (std::size_t i = 0; i < size; ++i) {
      if (in_string_) {
        if (escape_) {  // the escaped byte, carried over from the previous chunk
          escape_ = false;
          continue;
        }
        if (!reading_key_) {  // fast path: only a quote, a backslash or a newline matter here
          while (i < size && !kStringStop[static_cast<unsigned char>(data[i])]) ++i;
          if (i == size) break;
        }
        const char c = data[i];
        if (c == '\\') {
          if (i + 1 < size) {
            ++i;
          } else {
            escape_ = true;
          }
        } else if (c == '"') {
          in_string_ = false;
          if (reading_key_) {
            reading_key_ = false;
            key_is_events_ = key_ == "traceEvents";
          }
        } else {
          if (c == '\n') ++line_;
          if (reading_key_ && key_.size() < 64) key_.push_back(c);
        }
        continue;
      }
      if (capturing_) {  // inside an event only brackets, quotes and newlines matter
        while (i < size && !kEventStop[static_cast<unsigned char>(data[i])]) ++i;
        if (i == size) break;
      }
      const char c = data[i];
      if (c == '\n') ++line_;
      switch (c) {
        case ' ': case '\t': case '\r': case '\n':
          break;
        case '"':
          if (depth() == 0) return unexpected(c, done_ ? "nothing after the end of the trace" : "a JSON object or array (a Chrome trace)");
          if (depth() == events_depth_ && !capturing_) return unexpected(c, "an event object");
          in_string_ = true;
          if (depth() == 1 && root_ == '{' && expect_key_) {
            reading_key_ = true;
            key_.clear();
          }
          break;
        case '{': case '[':
          if (auto status = open(c, i); !status) return status;
          break;
        case '}': case ']':
          if (auto status = close(c, data, i); !status) return status;
          break;
        case ':':
          if (depth() == 1 && root_ == '{') expect_key_ = false;
          break;
        case ',':
          if (depth() == 1 && root_ == '{') expect_key_ = true;
          break;
        default:
          if (done_) return unexpected(c, "nothing after the end of the trace");
          if (depth() == 0) return unexpected(c, "a JSON object or array (a Chrome trace)");
          if (depth() == events_depth_ && !capturing_) return unexpected(c, "an event object");
          break;
      }
    }
    if (capturing_) {
      const std::size_t from = capture_from_ == npos ? 0 : capture_from_;
      if (event_.size() + (size - from) > kMaxEvent) {
        return util::Error{"trace event larger than 256 MiB; expected a Chrome trace event", file_, event_line_};
      }
      event_.append(data + from, size - from);
    }
    return {};
  }

  util::Status finish() const {
    if (!done_) {
      if (!started_) return util::Error{"empty file; expected a Chrome trace (JSON)", file_, line_};
      if (in_string_) return util::Error{"unterminated string at the end of the file", file_, line_};
      return util::Error{"unexpected end of the file; expected the trace to be closed", file_, line_};
    }
    if (!saw_events_) {
      return util::Error{"no \"traceEvents\" array; expected a Chrome trace", file_, 1};
    }
    return {};
  }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  std::size_t depth() const { return stack_.size(); }

  util::Error unexpected(char c, const char* expected) const {
    std::string shown = c >= 0x20 && c < 0x7f ? std::string("'") + c + "'" : "byte " + std::to_string(static_cast<unsigned char>(c));
    return util::Error{"unexpected " + shown + "; expected " + expected, file_, line_};
  }

  util::Status open(char c, std::size_t i) {
    if (done_) return unexpected(c, "nothing after the end of the trace");
    if (events_depth_ != 0 && depth() == events_depth_ && !capturing_) {
      if (c != '{') return unexpected(c, "an event object");
      capturing_ = true;
      capture_from_ = i;
      event_line_ = line_;
      event_.clear();
    }
    if (depth() == 0) {
      started_ = true;
      root_ = c;
      if (c == '[') {
        events_depth_ = 1;
        saw_events_ = true;
      }
    } else if (depth() == 1 && root_ == '{' && c == '[' && key_is_events_ && !expect_key_) {
      events_depth_ = 2;
      saw_events_ = true;
    }
    if (stack_.size() >= kMaxDepth) return util::Error{"JSON nested deeper than 4096 levels", file_, line_};
    stack_.push_back(c);
    if (depth() == 1 && c == '{') expect_key_ = true;
    return {};
  }

  util::Status close(char c, const char* data, std::size_t i) {
    if (stack_.empty() || (c == '}') != (stack_.back() == '{')) {
      return unexpected(c, stack_.empty() ? "a JSON object or array" : (stack_.back() == '{' ? "'}'" : "']'"));
    }
    stack_.pop_back();
    if (capturing_ && depth() == events_depth_) {
      capturing_ = false;
      const std::size_t from = capture_from_ == npos ? 0 : capture_from_;
      if (event_.empty()) {
        // Whole event inside this chunk: the chunk buffer carries the padding.
        if (auto status = on_event_(std::string_view(data + from, i + 1 - from), event_line_); !status) return status;
      } else {
        event_.append(data + from, i + 1 - from);
        const std::size_t size = event_.size();
        event_.append(kEventPadding, ' ');
        if (auto status = on_event_(std::string_view(event_.data(), size), event_line_); !status) return status;
        event_.clear();
      }
      capture_from_ = npos;
    } else if (events_depth_ != 0 && depth() + 1 == events_depth_) {
      events_depth_ = 0;  // the event array closed
    }
    if (depth() == 0) done_ = true;
    return {};
  }

  const std::string& file_;
  const TraceEventCallback& on_event_;
  std::vector<char> stack_;
  char root_ = 0;
  std::size_t events_depth_ = 0;  // depth of the array holding events; 0 outside it
  bool in_string_ = false, escape_ = false;
  bool expect_key_ = false, reading_key_ = false, key_is_events_ = false;
  bool capturing_ = false, started_ = false, done_ = false, saw_events_ = false;
  std::size_t capture_from_ = npos;
  std::string key_;
  std::string event_;
  int line_ = 1;
  int event_line_ = 0;
};

}  // namespace

util::Status for_each_trace_event(FileInput& input, const TraceEventCallback& on_event) {
  const std::string file = input.path().string();
  Scanner scanner(file, on_event);
  std::vector<char> chunk(kChunk + kEventPadding, ' ');
  for (;;) {
    auto got = input.read(chunk.data(), kChunk);
    if (!got) return got.error();
    if (*got == 0) break;
    std::fill(chunk.begin() + static_cast<std::ptrdiff_t>(*got), chunk.begin() + static_cast<std::ptrdiff_t>(*got + kEventPadding), ' ');
    if (auto status = scanner.scan(chunk.data(), *got); !status) return status;
  }
  return scanner.finish();
}

}  // namespace fastci::evidence
