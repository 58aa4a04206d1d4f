#include "evidence/ingest/nsys_reader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "evidence/ingest/lcov_recording_sink.h"

namespace fastci::evidence {
namespace {

// A schema fixture, not a real capture (no nsys here): see tests/fixtures/evidence_native/nsys/README.md.
const std::filesystem::path kFixture =
    std::filesystem::path(FASTCI_SOURCE_DIR) / "tests/fixtures/evidence_native/nsys/schema_fixture.sqlite";

std::string read_bytes(const std::filesystem::path& file, std::size_t size) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

const std::string kGemm = "volta_sgemm_64x64_nn";
const std::string kFill =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >"
    "(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
const std::string kSoftmax =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous "
    "namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";

struct Row {
  std::string name, grid, block;
  std::uint64_t shared_memory, count;
  double duration_us;
};

std::vector<Row> rows(const TestEvidence& test) {
  std::vector<Row> result;
  for (const auto& k : test.kernels) result.push_back({k.name, k.grid, k.block, k.shared_memory, k.count, k.total_duration_us});
  std::sort(result.begin(), result.end(), [](const Row& a, const Row& b) { return std::tie(a.name, a.grid) < std::tie(b.name, b.grid); });
  return result;
}

bool operator==(const Row& a, const Row& b) {
  return a.name == b.name && a.grid == b.grid && a.block == b.block && a.shared_memory == b.shared_memory &&
         a.count == b.count && a.duration_us == b.duration_us;
}

// Expected: counted with sqlite3 on the fixture, e.g.
//   SELECT s.value, k.gridX||','||k.gridY||','||k.gridZ, count(*), sum(k.end - k.start)
//   FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName GROUP BY 1, 2;
// and, per test, by hand from the NVTX ranges (make_schema_fixture.py lists each launch).
TEST(NsysReader, NvtxRangesNameTheTestOfEachLaunch) {
  RecordingSink sink;
  const auto status = read_nsys(kFixture, sink);
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  ASSERT_EQ(sink.runs.size(), 1u);
  EXPECT_EQ(sink.runs[0].source_format, "nsys-sqlite");
  ASSERT_EQ(sink.tests.size(), 3u);
  // correlation 101/102 on the main thread, 103 on the autograd thread of the same process
  EXPECT_EQ(rows(sink.tests.at("tests/test_ops.py::test_matmul[bf16]")),
            (std::vector<Row>{{kFill, "1024,1,1", "128,1,1", 0, 1, 3.0}, {kGemm, "8,4,36", "64,1,1", 8448, 2, 410.0}}));
  // the range's name comes through textId -> StringIds; dynamic shared memory 4096
  EXPECT_EQ(rows(sink.tests.at("tests/test_ops.py::test_softmax")),
            (std::vector<Row>{{kSoftmax, "32,1,1", "1024,1,1", 4096, 2, 23.0}}));
  // after both tests, and process 5151 (same correlation id 101 as a launch of 4242) has no test range
  EXPECT_EQ(rows(sink.tests.at("")),
            (std::vector<Row>{{kFill, "1024,1,1", "128,1,1", 0, 1, 2.5}, {kGemm, "16,4,36", "64,1,1", 8448, 1, 400.0}}));
  EXPECT_EQ(sink.tests.at("tests/test_ops.py::test_softmax").kernels.at(0).template_arguments,
            (std::vector<std::string>{"4", "float", "float", "float",
                                      "at::native::(anonymous namespace)::SoftMaxForwardEpilogue"}));
  EXPECT_TRUE(sink.warnings.empty());
}

TEST(NsysReader, WholeFileTestId) {
  RecordingSink sink;
  ASSERT_TRUE(read_nsys(kFixture, sink, NsysOptions{.test_id = "gtest.Suite.Case", .test_id_of_range = {}}).ok());
  ASSERT_EQ(sink.tests.size(), 1u);
  std::uint64_t launches = 0;
  for (const auto& kernel : sink.tests.at("gtest.Suite.Case").kernels) launches += kernel.count;
  EXPECT_EQ(launches, 7u);  // SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL
  EXPECT_EQ(sink.tests.at("gtest.Suite.Case").kernels.size(), 4u);
}

TEST(NsysReader, OtherFilesAreErrors) {
  const auto dir = std::filesystem::temp_directory_path() / ("fastci_nsys_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  RecordingSink sink;
  // coverage.py's SQLite database: SQLite, but not an nsys export.
  const auto coverage = std::filesystem::path(FASTCI_SHARED_DIR) / "data/coverage/coveragepy/deepspeed-cpu.coverage.sqlite";
  auto status = read_nsys(coverage, sink);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("no StringIds table"), std::string::npos) << status.error().to_string();
  const auto text = dir / "trace.json";
  std::ofstream(text) << "{\"traceEvents\": []}";
  status = read_nsys(text, sink);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().file, text.string());
  const auto truncated = dir / "truncated.sqlite";
  const std::string bytes = read_bytes(kFixture, std::filesystem::file_size(kFixture) / 2);
  std::ofstream(truncated, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  status = read_nsys(truncated, sink);
  EXPECT_FALSE(status.ok());
  status = read_nsys(dir / "missing.sqlite", sink);
  EXPECT_FALSE(status.ok());
  std::filesystem::remove_all(dir);
}

TEST(NsysReader, Sniffs) {
  EXPECT_TRUE(sniff_nsys(read_bytes(kFixture, 4096), kFixture));
  const auto coverage = std::filesystem::path(FASTCI_SHARED_DIR) / "data/coverage/coveragepy/deepspeed-cpu.coverage.sqlite";
  EXPECT_FALSE(sniff_nsys(read_bytes(coverage, 4096), coverage));
  EXPECT_FALSE(sniff_nsys("{\"traceEvents\": []}", "t.json"));
}

}  // namespace
}  // namespace fastci::evidence
