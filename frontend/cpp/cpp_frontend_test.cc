#include "frontend/cpp/cpp_frontend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace fastci::frontend::cpp {
namespace {

namespace fs = std::filesystem;
using Lines = std::set<std::string>;

const fs::path kFixtures = fs::path(FASTCI_SOURCE_DIR) / "tests" / "fixtures" / "cpp";

bool has_cuda() { return fs::exists("/usr/local/cuda/include/cuda_runtime.h"); }

TranslationUnitFacts parse(const fs::path& repository, const std::string& source, CppParseOptions options = {}) {
  options.repository = repository;
  auto units = parse_translation_units({source}, options);
  EXPECT_EQ(units.size(), 1u);
  return units.front();
}

/// "kind id file:first-last" of functions, kernels and bindings, or (`declarations`) of the
/// declaration and file symbols, which are checked on their own.
Lines symbol_lines(const FileFacts& facts, bool declarations = false) {
  Lines out;
  for (const Symbol& s : facts.symbols)
    if ((s.kind == SymbolKind::declaration || s.kind == SymbolKind::module) == declarations)
      out.insert(std::string(to_string(s.kind)) + " " + s.id + " " + s.file + ":" + std::to_string(s.first_line) + "-" +
                 std::to_string(s.last_line));
  return out;
}

Lines edge_lines(const FileFacts& facts) {
  Lines out;
  for (const Edge& e : facts.edges)
    if (e.kind != EdgeKind::uses)
      out.insert(std::string(to_string(e.kind)) + " " + e.from + " -> " + e.to + " @" + e.file + ":" +
               std::to_string(e.line));
  return out;
}

Lines launch_lines(const FileFacts& facts) {
  Lines out;
  for (const LaunchSite& l : facts.launches) {
    std::string arguments;
    for (const std::string& argument : l.template_arguments) arguments += (arguments.empty() ? "" : ",") + argument;
    out.insert(l.host_function + " -> " + l.kernel + " <<<" + l.grid + "|" + l.block + "|" + l.shared_memory + "|" +
               l.stream + ">>> [" + arguments + "] @" + l.file + ":" + std::to_string(l.line));
  }
  return out;
}

Lines binding_lines(const FileFacts& facts) {
  Lines out;
  for (const Binding& b : facts.bindings)
    out.insert(b.extension_module + "." + b.python_name + "[" + b.dispatch_key + "] -> " + b.target + " @" + b.file +
               ":" + std::to_string(b.line));
  return out;
}

std::string joined(const Lines& lines) {
  std::string out;
  for (const std::string& line : lines) out += "    \"" + line + "\",\n";
  return out;
}

#define EXPECT_LINES(actual, ...)                              \
  do {                                                         \
    const Lines expected_lines{__VA_ARGS__};                   \
    EXPECT_EQ(actual, expected_lines) << "actual:\n" << joined(actual); \
  } while (0)

TEST(CppFrontend, ExtensionBindingsCallsAndDispatchLambda) {
  const auto unit = parse(kFixtures / "ext", "csrc/ops.cpp");
  const FileFacts& facts = unit.facts;
  EXPECT_EQ(unit.error_count, 0) << (facts.diagnostics.empty() ? "" : facts.diagnostics.front().message);
  EXPECT_FALSE(unit.crashed);
  EXPECT_TRUE(facts.parsed);
  EXPECT_EQ(facts.path, "csrc/ops.cpp");
  EXPECT_EQ(facts.language, Language::cpp);
  EXPECT_EQ(facts.content_hash.size(), 32u);
  EXPECT_EQ(facts.imported_modules, (std::vector<std::string>{"csrc/include/kernels.h", "csrc/include/shapes.h"}));
  ASSERT_EQ(unit.headers.size(), 2u);
  EXPECT_EQ(unit.headers[0].content_hash.size(), 32u);

  EXPECT_LINES(symbol_lines(facts),
    "binding binding:TORCH_EXTENSION_NAME.Accumulator.__init__ csrc/ops.cpp:50-50",
    "binding binding:TORCH_EXTENSION_NAME.Accumulator.add csrc/ops.cpp:51-51",
    "binding binding:TORCH_EXTENSION_NAME.Accumulator.value csrc/ops.cpp:52-52",
    "binding binding:TORCH_EXTENSION_NAME.fill csrc/ops.cpp:45-45",
    "binding binding:TORCH_EXTENSION_NAME.scale csrc/ops.cpp:44-44",
    "binding binding:TORCH_EXTENSION_NAME.scale_float csrc/ops.cpp:47-47",
    "binding binding:TORCH_EXTENSION_NAME.scale_int csrc/ops.cpp:48-48",
    "binding binding:TORCH_EXTENSION_NAME.shapes_area csrc/ops.cpp:46-46",
    "binding binding:torch.ops.fixture.fill_op csrc/ops.cpp:57-57",
    "binding binding:torch.ops.fixture.scale_op csrc/ops.cpp:56-56",
    "function cpp:csrc/ops.cpp::TORCH_LIBRARY_IMPL_init_fixture_CPU_fastci_uid_1(torch::Library &) csrc/ops.cpp:62-62",
    "function cpp:csrc/ops.cpp::TORCH_LIBRARY_IMPL_init_fixture_CUDA_fastci_uid_0(torch::Library &) csrc/ops.cpp:60-60",
    "function cpp:csrc/ops.cpp::TORCH_LIBRARY_init_fixture(torch::Library &) csrc/ops.cpp:55-58",
    "function cpp:csrc/ops.cpp::pybind11_init_TORCH_EXTENSION_NAME(pybind11::module_ &) csrc/ops.cpp:43-53",
    "function cpp:fixture::clamp_value(T, T, T) csrc/include/shapes.h:33-36",
    "function cpp:fixture::fill(long, double) csrc/ops.cpp:26-30",
    "function cpp:fixture::scale(at::Tensor, double) csrc/ops.cpp:10-17",
    "function cpp:fixture::scale_as(at::Tensor, T) csrc/ops.cpp:21-24",
    "function cpp:fixture::scale_as<float>(at::Tensor, float) csrc/ops.cpp:21-24",
    "function cpp:fixture::scale_as<int>(at::Tensor, int) csrc/ops.cpp:21-24",
    "function cpp:fixture::scale_cpu(at::Tensor, double) csrc/ops.cpp:19-19",
    "function cpp:fixture::shapes_area(double, double) csrc/ops.cpp:32-36",
    "method cpp:fixture::Circle::Circle(double) csrc/include/shapes.h:26-26",
    "method cpp:fixture::Shape::doubled_area() const csrc/include/shapes.h:12-12",
    "method cpp:fixture::Square::Square(double) csrc/include/shapes.h:17-17",
  );

  const std::string init = "cpp:csrc/ops.cpp::pybind11_init_TORCH_EXTENSION_NAME(pybind11::module_ &)";
  EXPECT_LINES(edge_lines(facts),
    "binding binding:TORCH_EXTENSION_NAME.Accumulator.__init__ -> cpp:fixture::Accumulator::Accumulator(double) @csrc/ops.cpp:50",
    "binding binding:TORCH_EXTENSION_NAME.Accumulator.add -> cpp:fixture::Accumulator::add(double) @csrc/ops.cpp:51",
    "binding binding:TORCH_EXTENSION_NAME.Accumulator.value -> cpp:fixture::Accumulator::value() const @csrc/ops.cpp:52",
    "binding binding:TORCH_EXTENSION_NAME.fill -> cpp:fixture::fill(long, double) @csrc/ops.cpp:45",
    "binding binding:TORCH_EXTENSION_NAME.scale -> cpp:fixture::scale(at::Tensor, double) @csrc/ops.cpp:44",
    "binding binding:TORCH_EXTENSION_NAME.scale_float -> cpp:fixture::scale_as<float>(at::Tensor, float) @csrc/ops.cpp:47",
    "binding binding:TORCH_EXTENSION_NAME.scale_int -> cpp:fixture::scale_as<int>(at::Tensor, int) @csrc/ops.cpp:48",
    "binding binding:TORCH_EXTENSION_NAME.shapes_area -> cpp:fixture::shapes_area(double, double) @csrc/ops.cpp:46",
    "binding binding:torch.ops.fixture.fill_op -> cpp:fixture::fill(long, double) @csrc/ops.cpp:57",
    "call cpp:fixture::fill(long, double) -> cpp:fixture::launch_fill(float *, int, float, CUstream_st *) @csrc/ops.cpp:28",
    // The AT_DISPATCH lambda's calls belong to scale, once per dispatched type.
    "call cpp:fixture::scale(at::Tensor, double) -> cpp:fixture::launch_scale<double>(double *, const double *, int, float, CUstream_st *) @csrc/ops.cpp:12",
    "call cpp:fixture::scale(at::Tensor, double) -> cpp:fixture::launch_scale<float>(float *, const float *, int, float, CUstream_st *) @csrc/ops.cpp:12",
    "call cpp:fixture::scale_as(at::Tensor, T) -> cpp:fixture::scale(at::Tensor, double) @csrc/ops.cpp:23",
    "call cpp:fixture::scale_as<float>(at::Tensor, float) -> cpp:fixture::scale(at::Tensor, double) @csrc/ops.cpp:23",
    "call cpp:fixture::scale_as<int>(at::Tensor, int) -> cpp:fixture::scale(at::Tensor, double) @csrc/ops.cpp:23",
    "call cpp:fixture::shapes_area(double, double) -> cpp:fixture::Circle::Circle(double) @csrc/ops.cpp:34",
    "call cpp:fixture::shapes_area(double, double) -> cpp:fixture::Shape::doubled_area() const @csrc/ops.cpp:35",
    "call cpp:fixture::shapes_area(double, double) -> cpp:fixture::Square::Square(double) @csrc/ops.cpp:33",
    "call cpp:fixture::shapes_area(double, double) -> cpp:fixture::total_area(const std::vector<const fixture::Shape *> &) @csrc/ops.cpp:35",
    "call " + init + " -> cpp:fixture::shapes_area(double, double) @csrc/ops.cpp:46",
    "dispatch-registration binding:torch.ops.fixture.scale_op -> cpp:fixture::scale(at::Tensor, double) @csrc/ops.cpp:60",
    "dispatch-registration binding:torch.ops.fixture.scale_op -> cpp:fixture::scale_cpu(at::Tensor, double) @csrc/ops.cpp:62",
    "override cpp:fixture::Shape::area() const -> cpp:fixture::Circle::area() const @csrc/include/shapes.h:27",
    "override cpp:fixture::Shape::area() const -> cpp:fixture::Square::area() const @csrc/include/shapes.h:18",
    "reference cpp:csrc/ops.cpp::TORCH_LIBRARY_IMPL_init_fixture_CPU_fastci_uid_1(torch::Library &) -> cpp:fixture::scale_cpu(at::Tensor, double) @csrc/ops.cpp:62",
    "reference cpp:csrc/ops.cpp::TORCH_LIBRARY_IMPL_init_fixture_CUDA_fastci_uid_0(torch::Library &) -> cpp:fixture::scale(at::Tensor, double) @csrc/ops.cpp:60",
    "reference cpp:csrc/ops.cpp::TORCH_LIBRARY_init_fixture(torch::Library &) -> cpp:fixture::fill(long, double) @csrc/ops.cpp:57",
    "reference " + init + " -> cpp:fixture::Accumulator::add(double) @csrc/ops.cpp:51",
    "reference " + init + " -> cpp:fixture::Accumulator::value() const @csrc/ops.cpp:52",
    "reference " + init + " -> cpp:fixture::fill(long, double) @csrc/ops.cpp:45",
    "reference " + init + " -> cpp:fixture::scale(at::Tensor, double) @csrc/ops.cpp:44",
    "reference " + init + " -> cpp:fixture::scale_as<float>(at::Tensor, float) @csrc/ops.cpp:47",
    "reference " + init + " -> cpp:fixture::scale_as<int>(at::Tensor, int) @csrc/ops.cpp:48",
    "reference cpp:fixture::scale_as<float>(at::Tensor, float) -> cpp:fixture::scale_as(at::Tensor, T) @csrc/ops.cpp:22",
    "reference cpp:fixture::scale_as<int>(at::Tensor, int) -> cpp:fixture::scale_as(at::Tensor, T) @csrc/ops.cpp:22",
    "virtual-call cpp:fixture::Shape::doubled_area() const -> cpp:fixture::Circle::area() const @csrc/include/shapes.h:12",
    "virtual-call cpp:fixture::Shape::doubled_area() const -> cpp:fixture::Shape::area() const @csrc/include/shapes.h:12",
    "virtual-call cpp:fixture::Shape::doubled_area() const -> cpp:fixture::Square::area() const @csrc/include/shapes.h:12",
  );

  EXPECT_LINES(binding_lines(facts),
    "TORCH_EXTENSION_NAME.Accumulator.__init__[] -> cpp:fixture::Accumulator::Accumulator(double) @csrc/ops.cpp:50",
    "TORCH_EXTENSION_NAME.Accumulator.add[] -> cpp:fixture::Accumulator::add(double) @csrc/ops.cpp:51",
    "TORCH_EXTENSION_NAME.Accumulator.value[] -> cpp:fixture::Accumulator::value() const @csrc/ops.cpp:52",
    "TORCH_EXTENSION_NAME.fill[] -> cpp:fixture::fill(long, double) @csrc/ops.cpp:45",
    "TORCH_EXTENSION_NAME.scale[] -> cpp:fixture::scale(at::Tensor, double) @csrc/ops.cpp:44",
    "TORCH_EXTENSION_NAME.scale_float[] -> cpp:fixture::scale_as<float>(at::Tensor, float) @csrc/ops.cpp:47",
    "TORCH_EXTENSION_NAME.scale_int[] -> cpp:fixture::scale_as<int>(at::Tensor, int) @csrc/ops.cpp:48",
    "TORCH_EXTENSION_NAME.shapes_area[] -> cpp:fixture::shapes_area(double, double) @csrc/ops.cpp:46",
    "torch.ops.fixture.fill_op[] -> cpp:fixture::fill(long, double) @csrc/ops.cpp:57",
    "torch.ops.fixture.scale_op[CPU] -> cpp:fixture::scale_cpu(at::Tensor, double) @csrc/ops.cpp:62",
    "torch.ops.fixture.scale_op[CUDA] -> cpp:fixture::scale(at::Tensor, double) @csrc/ops.cpp:60",
    "torch.ops.fixture.scale_op[] ->  @csrc/ops.cpp:56",
  );
  EXPECT_TRUE(facts.launches.empty());
}

/// `uses` edges ("from -> to").
Lines use_lines(const FileFacts& facts) {
  Lines out;
  for (const Edge& e : facts.edges)
    if (e.kind == EdgeKind::uses) out.insert(e.from + " -> " + e.to);
  return out;
}

bool contains_all(const Lines& lines, std::initializer_list<const char*> wanted) {
  bool all = true;
  for (const char* w : wanted)
    if (!lines.contains(w)) {
      ADD_FAILURE() << "missing: " << w;
      all = false;
    }
  return all;
}

TEST(CppFrontend, DeclarationsOutsideFunctionBodiesAndTheCodeUsingThem) {
  const auto shapes = parse(kFixtures / "ext", "csrc/shapes.cpp");
  EXPECT_TRUE(contains_all(symbol_lines(shapes.facts, true), {
      "declaration cpp-type:fixture::Accumulator csrc/include/shapes.h:41-49",
      "declaration cpp-var:fixture::kPi csrc/include/shapes.h:52-52",
      "declaration cpp-proto:cpp:fixture::total_area(const std::vector<const fixture::Shape *> &)@csrc/include/shapes.h "
      "csrc/include/shapes.h:38-38",
      "module cpp-file:csrc/include/shapes.h csrc/include/shapes.h:1-55",
  }));
  EXPECT_TRUE(contains_all(use_lines(shapes.facts), {
      "cpp:fixture::Circle::area() const -> cpp-var:fixture::kPi",                 // a constant read
      "cpp:fixture::Accumulator::add(double) -> cpp-type:fixture::Accumulator",    // a member written
      "cpp-type:fixture::Square -> cpp-type:fixture::Shape",                       // a base class
      "cpp:fixture::total_area(const std::vector<const fixture::Shape *> &) -> "   // its own prototype
      "cpp-proto:cpp:fixture::total_area(const std::vector<const fixture::Shape *> &)@csrc/include/shapes.h",
  }));
  EXPECT_FALSE(use_lines(shapes.facts).contains("cpp:fixture::Square::area() const -> cpp-var:fixture::kPi"));

  const auto ops = parse(kFixtures / "ext", "csrc/ops.cpp");
  EXPECT_TRUE(contains_all(symbol_lines(ops.facts, true), {
      "declaration cpp-macro:csrc/ops.cpp:FIXTURE_DEF_SCALE csrc/ops.cpp:40-41",
  }));
  // A registration entry of a py::class_ chain is its own lines, not the chain before it.
  EXPECT_TRUE(symbol_lines(ops.facts).contains("binding binding:TORCH_EXTENSION_NAME.Accumulator.add csrc/ops.cpp:51-51"));
  EXPECT_TRUE(contains_all(use_lines(ops.facts), {
      "binding:TORCH_EXTENSION_NAME.scale_float -> cpp-macro:csrc/ops.cpp:FIXTURE_DEF_SCALE",  // entries the macro writes
      "binding:TORCH_EXTENSION_NAME.scale_int -> cpp-macro:csrc/ops.cpp:FIXTURE_DEF_SCALE",
  }));
  for (const auto& line : use_lines(ops.facts))
    EXPECT_FALSE(line.starts_with("binding:TORCH_EXTENSION_NAME.scale ->")) << line;  // m.def("scale") expands no macro
}

TEST(CppFrontend, ExplicitInstantiationsAreDeclarationsOfTheirSpecialization) {
  if (!has_cuda()) GTEST_SKIP() << "CUDA headers not installed";
  const auto kernels = parse(kFixtures / "ext", "csrc/kernels.cu");
  const std::string specialization = "cpp:fixture::launch_scale<float>(float *, const float *, int, float, CUstream_st *)";
  EXPECT_TRUE(symbol_lines(kernels.facts, true)
                  .contains("declaration cpp-inst:" + specialization + "@csrc/kernels.cu csrc/kernels.cu:30-30"));
  EXPECT_TRUE(use_lines(kernels.facts).contains(specialization + " -> cpp-inst:" + specialization + "@csrc/kernels.cu"));
}

TEST(CppFrontend, VirtualCallsReachEveryOverrider) {
  const auto unit = parse(kFixtures / "ext", "csrc/shapes.cpp");
  EXPECT_EQ(unit.error_count, 0);
  EXPECT_LINES(symbol_lines(unit.facts),
    "function cpp:fixture::clamp_value(T, T, T) csrc/include/shapes.h:33-36",
    "function cpp:fixture::clamp_value<double>(double, double, double) csrc/include/shapes.h:33-36",
    "function cpp:fixture::total_area(const std::vector<const fixture::Shape *> &) csrc/shapes.cpp:9-13",
    "method cpp:fixture::Accumulator::Accumulator(double) csrc/shapes.cpp:15-15",
    "method cpp:fixture::Accumulator::add(double) csrc/shapes.cpp:17-17",
    "method cpp:fixture::Accumulator::value() const csrc/shapes.cpp:19-19",
    "method cpp:fixture::Circle::Circle(double) csrc/include/shapes.h:26-26",
    "method cpp:fixture::Circle::area() const csrc/shapes.cpp:7-7",
    "method cpp:fixture::Shape::doubled_area() const csrc/include/shapes.h:12-12",
    "method cpp:fixture::Square::Square(double) csrc/include/shapes.h:17-17",
    "method cpp:fixture::Square::area() const csrc/shapes.cpp:5-5",
  );
  const Lines edges = edge_lines(unit.facts);
  const std::string total = "cpp:fixture::total_area(const std::vector<const fixture::Shape *> &)";
  for (const std::string& expected : std::vector<std::string>{
           "virtual-call " + total + " -> cpp:fixture::Shape::area() const @csrc/shapes.cpp:11",
           "virtual-call " + total + " -> cpp:fixture::Square::area() const @csrc/shapes.cpp:11",
           "virtual-call " + total + " -> cpp:fixture::Circle::area() const @csrc/shapes.cpp:11",
           "call " + total + " -> cpp:fixture::clamp_value<double>(double, double, double) @csrc/shapes.cpp:12",
           std::string("reference cpp:fixture::clamp_value<double>(double, double, double) -> "
                       "cpp:fixture::clamp_value(T, T, T) @csrc/include/shapes.h:34"),
       })
    EXPECT_TRUE(edges.contains(expected)) << expected << "\nactual:\n" << joined(edges);
}

TEST(CppFrontend, KernelsLaunchSitesAndTemplateArguments) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda: CUDA parse tests need its headers";
  const auto unit = parse(kFixtures / "ext", "csrc/kernels.cu");
  const FileFacts& facts = unit.facts;
  EXPECT_EQ(unit.error_count, 0) << (facts.diagnostics.empty() ? "" : facts.diagnostics.front().message);
  EXPECT_EQ(facts.language, Language::cuda);
  const std::string scale_float = "cpp:fixture::launch_scale<float>(float *, const float *, int, float, CUstream_st *)";
  const std::string scale_double = "cpp:fixture::launch_scale<double>(double *, const double *, int, float, CUstream_st *)";
  const std::string fill = "cpp:fixture::launch_fill(float *, int, float, CUstream_st *)";
  EXPECT_LINES(launch_lines(facts),
    scale_double + " -> cuda:fixture::scale_kernel<double, 4>(double *, const double *, int, float) <<<grid|block|0|stream>>> [double,4] @csrc/kernels.cu:27",
    scale_float + " -> cuda:fixture::scale_kernel<float, 4>(float *, const float *, int, float) <<<grid|block|0|stream>>> [float,4] @csrc/kernels.cu:27",
    "cpp:fixture::launch_scale(T *, const T *, int, float, CUstream_st *) -> cuda:fixture::scale_kernel(T *, const T *, int, float) <<<grid|block|0|stream>>> [] @csrc/kernels.cu:27",
    fill + " -> cuda:fixture::fill_kernel(float *, int, float) <<<(count + 127) / 128|128||>>> [] @csrc/kernels.cu:34",
    fill + " -> cuda:fixture::fill_kernel(float *, int, float) <<<dim3(1)|dim3(32)|0|stream>>> [] @csrc/kernels.cu:36",
  );
  EXPECT_LINES(symbol_lines(facts),
    "function cpp:fixture::launch_fill(float *, int, float, CUstream_st *) csrc/kernels.cu:33-37",
    "function cpp:fixture::launch_scale(T *, const T *, int, float, CUstream_st *) csrc/kernels.cu:23-28",
    "function " + scale_double + " csrc/kernels.cu:23-28",
    "function " + scale_float + " csrc/kernels.cu:23-28",
    "function cuda:fixture::twice(T) csrc/kernels.cu:7-10",
    "function cuda:fixture::twice<double>(double) csrc/kernels.cu:7-10",
    "function cuda:fixture::twice<float>(float) csrc/kernels.cu:7-10",
    "kernel cuda:fixture::fill_kernel(float *, int, float) csrc/kernels.cu:18-21",
    "kernel cuda:fixture::scale_kernel(T *, const T *, int, float) csrc/kernels.cu:12-16",
    "kernel cuda:fixture::scale_kernel<double, 4>(double *, const double *, int, float) csrc/kernels.cu:12-16",
    "kernel cuda:fixture::scale_kernel<float, 4>(float *, const float *, int, float) csrc/kernels.cu:12-16",
  );
  const Lines edges = edge_lines(facts);
  for (const std::string& expected : std::vector<std::string>{
           "kernel-launch " + scale_float + " -> cuda:fixture::scale_kernel<float, 4>(float *, const float *, int, float) @csrc/kernels.cu:27",
           "kernel-launch " + fill + " -> cuda:fixture::fill_kernel(float *, int, float) @csrc/kernels.cu:36",
           std::string("call cuda:fixture::scale_kernel<float, 4>(float *, const float *, int, float) -> cuda:fixture::twice<float>(float) @csrc/kernels.cu:15"),
       })
    EXPECT_TRUE(edges.contains(expected)) << expected << "\nactual:\n" << joined(edges);
}

TEST(CppFrontend, CompileDatabaseDefinesTheExtensionName) {
  std::ifstream in(kFixtures / "compile_commands" / "nvcc_cmake.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string json = text.str();
  const std::string captured = "/work/main/", replacement = std::string(FASTCI_SOURCE_DIR) + "/";
  for (std::size_t at = json.find(captured); at != std::string::npos; at = json.find(captured, at + replacement.size()))
    json.replace(at, captured.size(), replacement);
  const fs::path database = fs::temp_directory_path() / "fastci_cpp_frontend_test_compile_commands.json";
  std::ofstream(database) << json;
  CppParseOptions options;
  options.compile_commands = database;
  const auto unit = parse(kFixtures / "ext", "csrc/ops.cpp", options);
  EXPECT_EQ(unit.error_count, 0);
  const Lines bindings = binding_lines(unit.facts);
  EXPECT_TRUE(bindings.contains("fixture_ops.scale[] -> cpp:fixture::scale(at::Tensor, double) @csrc/ops.cpp:44"))
      << joined(bindings);
}

// Megatron-LM's dataset helpers and DeepSpeed's shared-memory op parse only with these in the stubs.
TEST(CppFrontend, StubsCoverNumpyArraysPosixCallsAndBracedSizes) {
  const auto unit = parse(kFixtures / "stub_coverage", "dataset_helpers.cpp");
  EXPECT_EQ(unit.error_count, 0) << (unit.facts.diagnostics.empty() ? "" : unit.facts.diagnostics.front().message);
  EXPECT_EQ(unit.facts.bindings.size(), 3u) << joined(binding_lines(unit.facts));
}

TEST(CppFrontend, StubsCoverTheDeprecatedTensorTypeAndDeviceOfByArgumentDependentLookup) {
  // DeepSpeed's fused_lamb (p.type().scalarType()) and multi_tensor_apply.cuh (device_of(t)) erred here.
  const auto unit = parse(kFixtures / "stub_coverage", "tensor_type_and_guard.cu");
  EXPECT_EQ(unit.error_count, 0) << (unit.facts.diagnostics.empty() ? "" : unit.facts.diagnostics.front().message);
}

TEST(CppFrontend, StubsCoverScalarTypeInvokerMapsAndTensorAccessors) {
  // DeepSpeed's cpu_adam_impl.cpp, cpu_lion_impl.cpp, cpu_adagrad.cpp and sparse_attention/utils.cpp erred here.
  const auto unit = parse(kFixtures / "stub_coverage", "optimizer_invokers.cpp");
  EXPECT_EQ(unit.error_count, 0) << (unit.facts.diagnostics.empty() ? "" : unit.facts.diagnostics.front().message);
}

TEST(CppFrontend, IntegralTemplateArgumentsAreSpelledAsTheDemanglerSpellsThem) {
  // Launch records name kernels by their mangled or demangled names; llvm-cxxfilt-19 prints this
  // instantiation (compiled by clang++-19 --cuda-device-only) exactly as the id below has it.
  const auto unit = parse(kFixtures / "template_arguments", "kernels.cu");
  EXPECT_TRUE(symbol_lines(unit.facts).contains(
      "kernel cuda:tagged_kernel<4u, 5l, 6ul, 7ll, 8ull, (char)65, (short)9, (unsigned char)10, true, -3, (Mode)1, "
      "(signed char)-2, (unsigned short)11>() kernels.cu:4-6"))
      << joined(symbol_lines(unit.facts));
}

TEST(CppFrontend, UnitWithErrorsKeepsItsFactsAndReportsThem) {
  const auto unit = parse(kFixtures / "errors", "broken.cpp");
  EXPECT_FALSE(unit.crashed);
  EXPECT_TRUE(unit.facts.parsed);
  EXPECT_EQ(unit.error_count, 2);
  ASSERT_EQ(unit.facts.diagnostics.size(), 2u);
  EXPECT_EQ(unit.facts.diagnostics[0].file, "broken.cpp");
  EXPECT_EQ(unit.facts.diagnostics[0].line, 1);
  EXPECT_NE(unit.facts.diagnostics[0].message.find("does_not_exist.h"), std::string::npos);
  EXPECT_EQ(unit.facts.diagnostics[1].line, 6);
  EXPECT_LINES(symbol_lines(unit.facts),
    "function cpp:after_error(int) broken.cpp:10-10",
    "function cpp:broken(int) broken.cpp:5-8",
    "function cpp:helper(int) broken.cpp:3-3",
  );
  EXPECT_TRUE(edge_lines(unit.facts).contains("call cpp:after_error(int) -> cpp:helper(int) @broken.cpp:10"));
}

TEST(CppFrontend, MissingFileIsADiagnosticNotAFailure) {
  CppParseOptions options;
  options.repository = kFixtures / "errors";
  options.threads = 2;
  const auto units = parse_translation_units({"absent.cpp", "broken.cpp"}, options);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_FALSE(units[0].facts.parsed);
  ASSERT_EQ(units[0].facts.diagnostics.size(), 1u);
  EXPECT_EQ(units[0].facts.diagnostics[0].file, "absent.cpp");
  EXPECT_FALSE(units[1].facts.symbols.empty());
}

TEST(CppFrontend, BodyHashIgnoresLayoutAndCommentsOnly) {
  CppParseOptions options;
  options.repository = kFixtures / "hash";
  const auto units = parse_translation_units({"a.cpp", "b.cpp", "c.cpp"}, options);
  ASSERT_EQ(units.size(), 3u);
  std::vector<std::uint64_t> hashes;
  for (const auto& unit : units) {
    ASSERT_EQ(symbol_lines(unit.facts).size(), 1u);
    const auto function = std::find_if(unit.facts.symbols.begin(), unit.facts.symbols.end(),
                                       [](const Symbol& s) { return s.kind == SymbolKind::function; });
    ASSERT_NE(function, unit.facts.symbols.end());
    EXPECT_EQ(function->id, "cpp:compute(int)");
    hashes.push_back(function->body_hash);
  }
  EXPECT_NE(hashes[0], 0u);
  EXPECT_EQ(hashes[0], hashes[1]);
  EXPECT_NE(hashes[0], hashes[2]);
}

TEST(CppFrontend, ParallelRunMatchesSerialRunAndReportsProgress) {
  CppParseOptions options;
  options.repository = kFixtures / "ext";
  const std::vector<std::string> sources{"csrc/shapes.cpp", "csrc/ops.cpp"};
  options.threads = 1;
  const auto serial = parse_translation_units(sources, options);
  options.threads = 2;
  std::size_t calls = 0;
  const auto parallel = parse_translation_units(sources, options, [&](std::size_t done, std::size_t total, const std::string&) {
    ++calls;
    EXPECT_LE(done, total);
  });
  EXPECT_EQ(calls, 2u);
  ASSERT_EQ(serial.size(), parallel.size());
  for (std::size_t i = 0; i < serial.size(); ++i) {
    EXPECT_EQ(serial[i].facts.path, sources[i]);
    EXPECT_EQ(symbol_lines(serial[i].facts), symbol_lines(parallel[i].facts));
    EXPECT_EQ(edge_lines(serial[i].facts), edge_lines(parallel[i].facts));
  }
}

TEST(CppFrontend, StubHeadersAreServedFromMemory) {
  CppParseOptions options;
  options.repository = kFixtures / "ext";
  const auto line = command_line_for("csrc/ops.cpp", options);
  EXPECT_NE(std::find(line.begin(), line.end(), "-isystem" + stub_directory()), line.end());
  EXPECT_FALSE(fs::exists(stub_directory()));  // virtual: nothing on disk
}

}  // namespace
}  // namespace fastci::frontend::cpp
