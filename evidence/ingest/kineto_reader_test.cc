#include "evidence/ingest/kineto_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>

#include "evidence/ingest/kineto_kernels.h"
#include "evidence/ingest/lcov_recording_sink.h"

namespace fastci::evidence {
namespace {

const std::filesystem::path kTraces = std::filesystem::path(FASTCI_SHARED_DIR) / "data/traces";

std::string read_head(const std::filesystem::path& file, std::size_t size = 4096) {
  std::ifstream in(file, std::ios::binary);
  std::string head(size, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

std::string gunzip(const std::filesystem::path& file) {
  gzFile in = gzopen(file.c_str(), "rb");
  std::string text;
  char buffer[1 << 16];
  int got = 0;
  while ((got = gzread(in, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(got));
  gzclose(in);
  return text;
}

struct Totals {
  std::uint64_t launches = 0;
  std::size_t configurations = 0;
  double duration_us = 0;
};

Totals totals(const TestEvidence& test) {
  Totals result;
  result.configurations = test.kernels.size();
  for (const auto& kernel : test.kernels) {
    result.launches += kernel.count;
    result.duration_us += kernel.total_duration_us;
  }
  return result;
}

struct TraceCase {
  const char* file;
  std::uint64_t launches;
  std::size_t configurations;
  double duration_us;
};

// Expected values from tests/fixtures/evidence_native/count_kineto.py (json + gzip, independent of
// this reader): launches = events with ph "X" and cat lower-cased "kernel" (they match the table in
// data/traces/README.md), configurations = distinct (name, grid, block, shared memory), duration =
// sum of "dur".
const TraceCase kTraceCases[] = {
    {"hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 14, 12, 110.881},
    {"hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz", 79, 33, 10728.0},
    {"hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 4350, 193, 468153.602},
    {"hta/timeline_analysis/sampled_rank-0.json.gz", 1154, 419, 606519.0},
    {"hta/trace_diff/control/control.json.gz", 8568, 539, 446813.0},
    {"hta/triton_example/triton_example.json.gz", 1, 1, 1.76},
    {"kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", 8772, 209, 591532.0},
    {"kineto/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz", 8772, 209, 591209.0},
};

TEST(KinetoReader, WholeFileTestIdCountsEveryLaunchOfRealTraces) {
  for (const auto& c : kTraceCases) {
    RecordingSink sink;
    const auto status = read_kineto(kTraces / c.file, sink, KinetoOptions{.test_id = "tests/test_model.py::test_step"});
    ASSERT_TRUE(status.ok()) << status.error().to_string();
    ASSERT_EQ(sink.runs.size(), 1u);
    EXPECT_EQ(sink.runs[0].source_format, "kineto");
    ASSERT_EQ(sink.tests.size(), 1u) << c.file;
    const Totals got = totals(sink.tests.at("tests/test_model.py::test_step"));
    EXPECT_EQ(got.launches, c.launches) << c.file;
    EXPECT_EQ(got.configurations, c.configurations) << c.file;
    EXPECT_NEAR(got.duration_us, c.duration_us, 0.01) << c.file;
    EXPECT_TRUE(sink.warnings.empty()) << c.file;
  }
}

const KernelLaunch* find_kernel(const TestEvidence& test, std::string_view name, std::string_view grid) {
  for (const auto& kernel : test.kernels) {
    if (kernel.name == name && kernel.grid == grid) return &kernel;
  }
  return nullptr;
}

TEST(KinetoReader, LaunchConfigurationComesFromKernelArgs) {
  RecordingSink sink;
  const auto status = read_kineto(kTraces / "hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
                                  sink, KinetoOptions{.test_id = "t"});
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  // The README's example event: grid [3, 2, 544], block [256, 1, 1], shared memory 24576, dur 323.
  const KernelLaunch* kernel = find_kernel(sink.tests.at("t"), "ampere_gcgemm_64x64_nt", "3,2,544");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->block, "256,1,1");
  EXPECT_EQ(kernel->shared_memory, 24576u);
  EXPECT_TRUE(kernel->template_arguments.empty());

  // The 2021 format ("Kernel" category, string tids): the README's volta_sgemm_64x64_nn example.
  RecordingSink old;
  ASSERT_TRUE(read_kineto(kTraces / "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", old,
                          KinetoOptions{.test_id = "t"}).ok());
  kernel = find_kernel(old.tests.at("t"), "volta_sgemm_64x64_nn", "8,4,36");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->block, "64,1,1");
  EXPECT_EQ(kernel->shared_memory, 8448u);

  // ROCm kernels carry no grid/block args: the configuration is the name alone.
  RecordingSink amd;
  ASSERT_TRUE(read_kineto(kTraces / "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", amd,
                          KinetoOptions{.test_id = "t"}).ok());
  kernel = find_kernel(amd.tests.at("t"),
                       "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                       "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
                       "");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->block, "");
  EXPECT_EQ(kernel->template_arguments,
            (std::vector<std::string>{"4", "at::native::FillFunctor<float>", "at::detail::Array<char*, 1>"}));
}

std::optional<std::string> profiler_step(std::string_view name) {
  if (!name.starts_with("ProfilerStep#")) return std::nullopt;
  return "step" + std::string(name.substr(13));
}

struct StepCase {
  const char* file;
  std::map<std::string, std::uint64_t> launches;  // per step ("" = outside every step)
};

TEST(KinetoReader, RangesAttributeLaunchesThroughTheirRuntimeCall) {
  // ProfilerStep#N ranges stand in for test ranges: the same mechanism (a CPU range, the runtime
  // call found by correlation id, its timestamp inside the range). Expected from count_kineto.py:
  // every step of these steady-state training loops launches the same kernels.
  const StepCase cases[] = {
      {"hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
       {{"step101", 870}, {"step102", 870}, {"step103", 870}, {"step104", 870}, {"step105", 870}}},
      {"hta/timeline_analysis/sampled_rank-0.json.gz", {{"step551", 577}, {"step552", 577}}},
      {"hta/trace_diff/control/control.json.gz",
       {{"step1009", 1428}, {"step1010", 1428}, {"step1011", 1428}, {"step1012", 1428}, {"step1013", 1428}, {"step1014", 1428}}},
      {"kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
       {{"step5", 1462}, {"step6", 1462}, {"step7", 1462}, {"step8", 1462}, {"step9", 1462}, {"step10", 1462}}},
      {"hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", {{"step1", 14}}},
      // Triton's cuLaunchKernel runs in another process (pid 1670242) than ProfilerStep#1.
      {"hta/triton_example/triton_example.json.gz", {{"", 1}}},
  };
  for (const auto& c : cases) {
    RecordingSink sink;
    const auto status = read_kineto(kTraces / c.file, sink, KinetoOptions{.test_id = {}, .test_id_of_range = profiler_step});
    ASSERT_TRUE(status.ok()) << status.error().to_string();
    std::map<std::string, std::uint64_t> got;
    for (const auto& [id, test] : sink.tests) got[id] = totals(test).launches;
    EXPECT_EQ(got, c.launches) << c.file;
  }
}

TEST(KinetoReader, WithoutTestRangesLaunchesAreOutsideAnyTestAndSaidSo) {
  // These traces have no range named by a pytest node id (only ProfilerStep#N and the like).
  RecordingSink sink;
  const auto status = read_kineto(kTraces / "hta/timeline_analysis/sampled_rank-0.json.gz", sink);
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  ASSERT_EQ(sink.tests.size(), 1u);
  EXPECT_EQ(totals(sink.tests.at("")).launches, 1154u);
  ASSERT_EQ(sink.warnings.size(), 1u);
  EXPECT_NE(sink.warnings[0].message.find("1154 kernel launches recorded outside any test"), std::string::npos);
}

TEST(KinetoReader, PytestNodeIdsNameTests) {
  EXPECT_EQ(pytest_node_id_range("tests/unit/ops/test_adam.py::TestAdam::test_step[bf16-2]"),
            "tests/unit/ops/test_adam.py::TestAdam::test_step[bf16-2]");
  EXPECT_EQ(pytest_node_id_range("test_dist.py::test_init"), "test_dist.py::test_init");
  EXPECT_FALSE(pytest_node_id_range("ProfilerStep#5"));
  EXPECT_FALSE(pytest_node_id_range("aten::mm"));
  EXPECT_FALSE(pytest_node_id_range("## forward ##"));
}

TEST(KinetoReader, TemplateArgumentsOfRealKernelNames) {
  // Names from hta/trace_diff/control/control.json.gz.
  EXPECT_EQ(kernel_template_arguments(
                "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, "
                "at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, "
                "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)"),
            (std::vector<std::string>{"float", "unsigned int", "2", "128", "1"}));
  EXPECT_EQ(kernel_template_arguments(
                "void at::native::_scatter_gather_elementwise_kernel<128, 4, at::native::_cuda_scatter_gather_internal_kernel"
                "<false, at::native::OpaqueType<4> >::operator()<at::native::TensorAssign>(at::TensorIterator&, long, long, "
                "long, at::native::TensorAssign const&)::{lambda(int)#1}>(int, at::native::_cuda_scatter_gather_internal_"
                "kernel<false, at::native::OpaqueType<4> >::operator()<at::native::TensorAssign>(at::TensorIterator&, long, "
                "long, long, at::native::TensorAssign const&)::{lambda(int)#1})"),
            (std::vector<std::string>{"128", "4",
                                      "at::native::_cuda_scatter_gather_internal_kernel<false, at::native::OpaqueType<4> "
                                      ">::operator()<at::native::TensorAssign>(at::TensorIterator&, long, long, long, "
                                      "at::native::TensorAssign const&)::{lambda(int)#1}"}));
  EXPECT_TRUE(kernel_template_arguments("volta_sgemm_64x64_nn").empty());
  EXPECT_TRUE(kernel_template_arguments("triton_poi_fused_add_cos_sin_0").empty());
  EXPECT_TRUE(kernel_template_arguments("broken>name<").empty());
  EXPECT_EQ(demangle_kernel_name("_Z6kernelIfLi4EEvPT_"), "void kernel<float, 4>(float*)");
}

class KinetoMalformed : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("fastci_kineto_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path write(const char* name, std::string_view bytes) {
    std::ofstream(dir_ / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return dir_ / name;
  }
  util::Status read(const std::filesystem::path& file) {
    RecordingSink sink;
    return read_kineto(file, sink, KinetoOptions{.test_id = "t"});
  }
  std::filesystem::path dir_;
};

TEST_F(KinetoMalformed, TruncatedFilesFail) {
  const auto real = kTraces / "hta/timeline_analysis/sampled_rank-0.json.gz";
  const std::string text = gunzip(real);
  auto status = read(write("half.json", std::string_view(text).substr(0, text.size() / 2)));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("end of the file"), std::string::npos) << status.error().to_string();
  const std::string gz = read_head(real, std::filesystem::file_size(real));
  status = read(write("half.json.gz", std::string_view(gz).substr(0, gz.size() / 2)));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("truncated"), std::string::npos) << status.error().to_string();
}

TEST_F(KinetoMalformed, BadEventsNameTheirLine) {
  auto status = read(write("event.json", "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\"},\n{\"ph\": \"X\" \"cat\": 1}\n]}"));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().line, 3);
  EXPECT_NE(status.error().message.find("malformed trace event"), std::string::npos);
  status = read(write("number.json", "{\"traceEvents\": [\n{\"ph\": \"i\"},\n42]}"));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().line, 3);
  EXPECT_NE(status.error().message.find("expected an event object"), std::string::npos);
  status = read(write("mismatch.json", "{\"traceEvents\": [}"));
  ASSERT_FALSE(status.ok());
  status = read(write("after.json", "{\"traceEvents\": []} x"));
  ASSERT_FALSE(status.ok());
  status = read(write("other.json", "{\"meta\": {\"traceEvents\": [1]}}"));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("no \"traceEvents\" array"), std::string::npos);
  status = read(write("lcov.info", "TN:\nSF:a.cc\nend_of_record\n"));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().line, 1);
  status = read(write("empty.json", ""));
  ASSERT_FALSE(status.ok());
  // The array form of the Chrome trace format, and strings holding brackets and escaped quotes.
  RecordingSink sink;
  status = read_kineto(write("array.json", "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k<\\\"]}\", \"dur\": 2}]"), sink,
                       KinetoOptions{.test_id = "t"});
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  EXPECT_EQ(sink.tests.at("t").kernels.at(0).name, "k<\"]}");
}

TEST(KinetoReader, SniffsChromeTraces) {
  for (const auto& c : kTraceCases) {
    EXPECT_TRUE(sniff_kineto(read_head(kTraces / c.file), kTraces / c.file)) << c.file;
  }
  EXPECT_FALSE(sniff_kineto("TN:\nSF:a.cc\n", "a.info"));
  EXPECT_FALSE(sniff_kineto("{\"format_version\": 1, \"files\": []}", "a.gcov.json"));
  EXPECT_TRUE(sniff_kineto("[{\"name\": \"k\", \"ph\": \"X\", \"ts\": 1}]", "trace.json"));
}

}  // namespace
}  // namespace fastci::evidence
