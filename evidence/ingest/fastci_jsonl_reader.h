#pragma once
/// Reader for fastci's own evidence JSONL (docs/formats/evidence-jsonl.md), written by the
/// fastci_pytest plugin and the kernel-launch collector.

#include <filesystem>
#include <string_view>

#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// Streams the file line by line into `sink`, merging consecutive records of one test before
/// handing them on (the sink merges the rest). The first record must be `run` with schema 1.
/// Unknown types and keys are warnings; a record with a known key of the wrong type is an error
/// naming file:line; an unparsable LAST line (a collector killed mid-write) is only a warning.
util::Status read_fastci_jsonl(const std::filesystem::path& file, EvidenceSink& sink);

/// Whether the head's first line is a fastci `run` record.
bool sniff_fastci_jsonl(std::string_view head, const std::filesystem::path& file);

}  // namespace fastci::evidence
