#pragma once
/// Streaming split of a Chrome trace ({"traceEvents": [...]} or a bare [...] of events) into its
/// event objects, so that a trace of any size is read with memory bounded by its largest event.

#include <functional>
#include <string_view>

#include "evidence/ingest/gcov_file_input.h"
#include "util/result.h"

namespace fastci::evidence {

/// Called with the bytes of one event object and the line it starts on. The bytes are followed by
/// at least kEventPadding readable bytes (simdjson's parse requirement).
using TraceEventCallback = std::function<util::Status(std::string_view event, int line)>;

/// Readable bytes guaranteed after each event handed to a TraceEventCallback.
inline constexpr std::size_t kEventPadding = 64;

/// Reads `input` to the end and calls `on_event` for every element of the trace's event array.
/// Checks the structure around the events (brackets, strings, nothing after the trace); the events
/// themselves are the callback's to validate. A callback error stops the read and is returned.
util::Status for_each_trace_event(FileInput& input, const TraceEventCallback& on_event);

}  // namespace fastci::evidence
