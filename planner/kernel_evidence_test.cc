#include "planner/kernel_evidence.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "evidence/ingest/kineto_reader.h"
#include "evidence/ingest/lcov_recording_sink.h"

namespace fastci::planner {
namespace {

const std::filesystem::path kKernelData = std::filesystem::path(FASTCI_SOURCE_DIR) / "tests/data/kernels";

nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << file;
  return nlohmann::json::parse(in);
}

/// Kernel symbols of a unit as the frontend names them, reduced for matching.
std::vector<evidence::KernelName> reduced(const nlohmann::json& ids) {
  std::vector<evidence::KernelName> out;
  for (const auto& id : ids) out.push_back(evidence::kernel_symbol_name(id.get<std::string>()));
  return out;
}

/// The frontend's symbols a launched name matches: an instantiation the frontend names, else the template.
std::vector<std::string> matches(const std::vector<evidence::KernelName>& symbols, const std::string& launched) {
  std::vector<std::string> out;
  for (const auto& symbol : symbols)
    if (launches_symbol(symbol, launched)) out.push_back(symbol.qualified);
  return out;
}

TEST(KernelEvidence, AnInstantiationMatchesItselfATemplateEveryInstantiation) {
  auto float4 = evidence::kernel_symbol_name("cuda:fixture::scale_kernel<float, 4>(float *, const float *, int, float)");
  auto any = evidence::kernel_symbol_name("cuda:fixture::scale_kernel(T *, const T *, int, float)");
  const char* launched_float = "void fixture::scale_kernel<float, 4>(float*, float const*, int, float)";
  const char* launched_double = "void fixture::scale_kernel<double, 4>(double*, double const*, int, float)";
  EXPECT_TRUE(launches_symbol(float4, launched_float));
  EXPECT_FALSE(launches_symbol(float4, launched_double));
  EXPECT_TRUE(launches_symbol(any, launched_float));
  EXPECT_TRUE(launches_symbol(any, launched_double));
  EXPECT_FALSE(launches_symbol(any, "void fixture::scale_kernel_v2<float>(float*)"));
  EXPECT_FALSE(launches_symbol(any, "void other::scale_kernel<float, 4>(float*, float const*, int, float)"));
  EXPECT_TRUE(is_native_kernel(frontend::SymbolKind::kernel, frontend::Language::cuda));
  EXPECT_FALSE(is_native_kernel(frontend::SymbolKind::function, frontend::Language::cuda));
}

frontend::Symbol symbol(const std::string& id, frontend::SymbolKind kind) {
  frontend::Symbol s;
  s.id = id;
  s.kind = kind;
  s.language = id.starts_with("cuda:") ? frontend::Language::cuda : frontend::Language::cpp;
  s.qualified_name = id.substr(id.find(':') + 1);
  s.file = "k.cu";
  return s;
}

TEST(KernelEvidence, ADeviceFunctionRunsThroughTheKernelsCallingItUnlessHostCodeDoes) {
  using frontend::EdgeKind;
  using frontend::SymbolKind;
  frontend::RepositoryFacts facts;
  frontend::FileFacts file;
  file.path = "k.cu";
  file.symbols = {symbol("cuda:k1(float *)", SymbolKind::kernel), symbol("cuda:k2(float *)", SymbolKind::kernel),
                  symbol("cuda:inner(float)", SymbolKind::function), symbol("cuda:outer(float)", SymbolKind::function),
                  symbol("cuda:both(float)", SymbolKind::function), symbol("cpp:host(float)", SymbolKind::function),
                  symbol("cuda:unused(float)", SymbolKind::function)};
  auto edge = [](const char* from, const char* to, EdgeKind kind) { return frontend::Edge{from, to, kind, "k.cu", 1}; };
  file.edges = {edge("cuda:k1(float *)", "cuda:outer(float)", EdgeKind::call),
                edge("cuda:k2(float *)", "cuda:outer(float)", EdgeKind::call),
                edge("cuda:outer(float)", "cuda:inner(float)", EdgeKind::call),
                edge("cuda:k2(float *)", "cuda:both(float)", EdgeKind::call),
                edge("cpp:host(float)", "cuda:both(float)", EdgeKind::call)};
  facts.files.push_back(file);
  auto graph = callgraph::CallGraph::build(facts);
  auto ids = [&](const std::string& id) {
    std::set<std::string> out;
    for (const auto& k : kernels_calling(graph, id)) out.insert(k.id);
    return out;
  };
  EXPECT_EQ(ids("cuda:inner(float)"), (std::set<std::string>{"cuda:k1(float *)", "cuda:k2(float *)"}));
  EXPECT_EQ(ids("cuda:outer(float)"), (std::set<std::string>{"cuda:k1(float *)", "cuda:k2(float *)"}));
  EXPECT_TRUE(ids("cuda:both(float)").empty());    // the host calls it too: launches cannot speak for it
  EXPECT_TRUE(ids("cuda:unused(float)").empty());  // nothing calls it
  EXPECT_TRUE(ids("cpp:host(float)").empty());     // host code: native coverage's business
  EXPECT_TRUE(ids("cuda:missing()").empty());
}

TEST(KernelEvidence, LaunchContextsClassGridAndSharedMemoryButKeepBlockAndTemplateArguments) {
  evidence::KernelLaunch a{"k", "100,1,1", "256,1,1", 0, {"float", "4"}, 1, 0};
  auto a_bit_bigger = a;
  a_bit_bigger.grid = "110,1,1";
  auto other_block = a;
  other_block.block = "128,1,1";
  auto other_dtype = a;
  other_dtype.template_arguments = {"double", "4"};
  auto much_bigger = a;
  much_bigger.grid = "10000,1,1";
  EXPECT_EQ(launch_context_key(a), launch_context_key(a_bit_bigger));
  EXPECT_NE(launch_context_key(a), launch_context_key(other_block));
  EXPECT_NE(launch_context_key(a), launch_context_key(other_dtype));
  EXPECT_NE(launch_context_key(a), launch_context_key(much_bigger));
}

TEST(KernelEvidence, EveryKernelClangCompilesFromDeepSpeedMapsToTheFrontendsSymbolOfItsUnit) {
  // tests/data/kernels/README.md: DeepSpeed edaa72212's csrc/**/*.cu compiled by Clang 19 in CUDA device
  // mode (PTX .entry names: Itanium-mangled, as a launch reports them), beside the frontend's kernels.
  auto data = read_json(kKernelData / "deepspeed-edaa72212.json");
  std::size_t units = 0, entries = 0, exact = 0;
  for (const auto& [path, unit] : data["units"].items()) {
    if (!unit["compiled"].get<bool>()) continue;
    ++units;
    auto symbols = reduced(unit["frontend_kernels"]);
    std::set<std::string> instantiations;
    for (const auto& symbol : symbols)
      if (symbol.qualified != symbol.base) instantiations.insert(symbol.qualified);
    for (const auto& entry : unit["entries"]) {
      std::string mangled = entry.get<std::string>();
      ++entries;
      auto found = matches(symbols, mangled);
      EXPECT_FALSE(found.empty()) << path << ": " << mangled << " = " << evidence::parse_kernel_name(mangled).qualified;
      // Where the frontend names this very instantiation, the launch is that symbol's.
      auto name = evidence::parse_kernel_name(mangled);
      if (instantiations.count(name.qualified)) ++exact;
      for (const auto& other : found)
        EXPECT_TRUE(other == name.qualified || other == name.base) << path << ": " << mangled << " matched " << other;
    }
  }
  EXPECT_EQ(units, 29u);
  EXPECT_EQ(entries, 608u);
  // Enumerator and unsigned arguments spelled as the demangler does: every instantiation meets its symbol.
  EXPECT_EQ(exact, 548u);
}

TEST(KernelEvidence, AtenKernelsOfTheRealTracesMapToThePyTorchHeadersTheFrontendParsed) {
  // tests/data/kernels/README.md: the kernels the frontend finds in four of PyTorch's CUDA headers.
  auto data = read_json(kKernelData / "pytorch-2.5.1-aten-kernels.json");
  std::vector<evidence::KernelName> symbols;
  for (const auto& kernel : data["kernels"]) symbols.push_back(evidence::kernel_symbol_name(kernel["id"].get<std::string>()));
  ASSERT_EQ(symbols.size(), 10u);
  std::set<std::string> names;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::filesystem::path(FASTCI_SHARED_DIR) / "data/traces")) {
    if (!entry.path().string().ends_with(".json.gz")) continue;
    evidence::RecordingSink sink;
    ASSERT_TRUE(evidence::read_kineto(entry.path(), sink, evidence::KinetoOptions{.test_id = "t"}).ok());
    for (const auto& [id, test] : sink.tests)
      for (const auto& k : test.kernels) names.insert(k.name);
  }
  std::map<std::string, std::size_t> by_symbol;
  std::size_t aten = 0;
  std::set<std::string> unmapped_bases;
  for (const auto& name : names) {
    auto parsed = evidence::parse_kernel_name(name);
    if (parsed.origin != evidence::KernelOrigin::aten) continue;
    ++aten;
    auto found = matches(symbols, name);
    EXPECT_LE(found.size(), 1u) << name;
    if (found.empty()) unmapped_bases.insert(parsed.base);
    else ++by_symbol[found.front()];
  }
  EXPECT_EQ(aten, 164u);
  // Counted independently from the traces' names (their kernel name before '<' or '(').
  EXPECT_EQ(by_symbol, (std::map<std::string, std::size_t>{
                           {"at::native::vectorized_elementwise_kernel", 73},
                           {"at::native::elementwise_kernel", 19},
                           {"at::native::unrolled_elementwise_kernel", 15},
                           {"at::native::reduce_kernel", 9},
                           {"at::native::(anonymous namespace)::multi_tensor_apply_kernel", 2},
                           {"at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel", 1},
                       }));
  // The rest are defined in PyTorch's .cu files, which the wheel does not ship: none of their names is
  // one of the parsed headers' kernels.
  for (const auto& base : unmapped_bases)
    for (const auto& symbol : symbols) EXPECT_NE(base, symbol.base);
}

}  // namespace
}  // namespace fastci::planner
