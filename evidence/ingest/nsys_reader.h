#pragma once
/// Reader for Nsight Systems SQLite exports (`nsys export --type sqlite`): GPU kernel launches
/// per test.

#include <filesystem>
#include <string>
#include <string_view>

#include "evidence/ingest/kineto_reader.h"
#include "evidence/records.h"
#include "util/result.h"

namespace fastci::evidence {

/// How kernels are attributed to tests.
struct NsysOptions {
  /// When set, every launch in the file belongs to this test and NVTX ranges are not looked at.
  std::string test_id;
  /// Otherwise a launch belongs to the innermost NVTX push/pop or start/end range that names a
  /// test and contains its runtime call (same thread, else same process); others get "".
  RangeTestId test_id_of_range = pytest_node_id_range;
};

/// Streams CUPTI_ACTIVITY_KIND_KERNEL rows (names from StringIds: demangledName, else shortName;
/// grid/block from gridX..blockZ; shared memory = static + dynamic), joined to
/// CUPTI_ACTIVITY_KIND_RUNTIME by correlationId within the process, into `sink`, aggregated per
/// (test, name, grid, block, shared memory).
util::Status read_nsys(const std::filesystem::path& file, EvidenceSink& sink);
/// As above, with explicit options.
util::Status read_nsys(const std::filesystem::path& file, EvidenceSink& sink, const NsysOptions& options);

/// Whether the file is an SQLite database with Nsight Systems export tables.
bool sniff_nsys(std::string_view head, const std::filesystem::path& file);

}  // namespace fastci::evidence
