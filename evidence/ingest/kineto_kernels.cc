#include "evidence/ingest/kineto_kernels.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace fastci::evidence {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

constexpr std::string_view kAnonymousNamespace = "(anonymous namespace)";

}  // namespace

std::vector<std::string> kernel_template_arguments(std::string_view name) {
  // Walk the name at bracket depth 0: remember the last top-level <...> group, stop at the
  // parameter list. "(anonymous namespace)" is part of a qualified name, not a parameter list.
  std::size_t group_begin = std::string_view::npos, group_end = std::string_view::npos;
  int depth = 0;
  std::size_t open_at = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (depth == 0 && c == '(') {
      if (name.substr(i).starts_with(kAnonymousNamespace)) {
        i += kAnonymousNamespace.size() - 1;
        continue;
      }
      if (name.substr(0, i).ends_with("operator") && name.substr(i).starts_with("()")) {
        ++i;  // the call operator's name, not its parameter list
        continue;
      }
      break;  // parameter list
    }
    if (c == '<' || c == '(' || c == '[' || c == '{') {
      if (depth == 0 && c == '<') open_at = i;
      ++depth;
    } else if (c == '>' || c == ')' || c == ']' || c == '}') {
      if (depth == 0) return {};  // unbalanced: not a name we understand
      --depth;
      if (depth == 0 && c == '>') {
        group_begin = open_at + 1;
        group_end = i;
      }
    }
  }
  if (group_begin == std::string_view::npos) return {};
  std::vector<std::string> arguments;
  const std::string_view group = name.substr(group_begin, group_end - group_begin);
  std::size_t start = 0;
  depth = 0;
  for (std::size_t i = 0; i <= group.size(); ++i) {
    const char c = i < group.size() ? group[i] : ',';
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      const auto argument = trim(group.substr(start, i - start));
      if (!argument.empty()) arguments.emplace_back(argument);
      start = i + 1;
    }
  }
  return arguments;
}

std::string demangle_kernel_name(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  int status = 0;
  const std::string mangled(name);
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                   std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : mangled;
}

std::string dimensions_text(std::int64_t x, std::int64_t y, std::int64_t z) {
  return std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z);
}

std::uint32_t KernelTable::intern(const KernelConfig& config) {
  std::string key;
  key.reserve(config.name.size() + config.grid.size() + config.block.size() + 24);
  key.append(config.name).push_back('\x1f');
  key.append(config.grid).push_back('\x1f');
  key.append(config.block).push_back('\x1f');
  key.append(std::to_string(config.shared_memory));
  const auto [it, inserted] = config_ids_.try_emplace(std::move(key), static_cast<std::uint32_t>(configs_.size()));
  if (inserted) configs_.push_back(config);
  return it->second;
}

std::uint32_t KernelTable::intern_test(std::string_view test_id) {
  const auto [it, inserted] = test_ids_.try_emplace(std::string(test_id), static_cast<std::uint32_t>(tests_.size()));
  if (inserted) tests_.emplace_back(test_id);
  return it->second;
}

void KernelTable::add(std::uint32_t test, std::uint32_t config, double duration_us) {
  auto& totals = totals_[{test, config}];
  ++totals.count;
  totals.duration_us += duration_us;
  ++launches_;
}

void KernelTable::emit(EvidenceSink& sink) const {
  auto it = totals_.begin();
  while (it != totals_.end()) {
    const std::uint32_t test = it->first.first;
    TestEvidence evidence;
    evidence.test_id = tests_[test];
    for (; it != totals_.end() && it->first.first == test; ++it) {
      const KernelConfig& config = configs_[it->first.second];
      KernelLaunch launch;
      launch.name = config.name;
      launch.grid = config.grid;
      launch.block = config.block;
      launch.shared_memory = config.shared_memory;
      launch.template_arguments = kernel_template_arguments(config.name);
      launch.count = it->second.count;
      launch.total_duration_us = it->second.duration_us;
      evidence.kernels.push_back(std::move(launch));
    }
    sink.add_test(std::move(evidence));
  }
}

void TestRangeIndex::add(std::uint32_t process, std::uint32_t thread, double start, double end, std::uint32_t test) {
  if (by_thread_.size() <= thread) by_thread_.resize(thread + 1);
  if (by_process_.size() <= process) by_process_.resize(process + 1);
  by_thread_[thread].push_back(Range{start, end, test});
  by_process_[process].push_back(Range{start, end, test});
  ++count_;
}

void TestRangeIndex::sort() {
  const auto by_start = [](const Range& a, const Range& b) { return a.start < b.start; };
  for (auto& ranges : by_thread_) std::stable_sort(ranges.begin(), ranges.end(), by_start);
  for (auto& ranges : by_process_) std::stable_sort(ranges.begin(), ranges.end(), by_start);
}

std::optional<std::uint32_t> TestRangeIndex::innermost(const std::vector<Range>& ranges, double ts) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), ts,
                             [](double value, const Range& range) { return value < range.start; });
  while (it != ranges.begin()) {
    --it;
    if (ts <= it->end) return it->test;  // latest start first: innermost of nested ranges
  }
  return std::nullopt;
}

std::optional<std::uint32_t> TestRangeIndex::find(std::uint32_t process, std::uint32_t thread, double ts) const {
  if (thread < by_thread_.size()) {
    if (auto test = innermost(by_thread_[thread], ts)) return test;
  }
  if (process < by_process_.size()) return innermost(by_process_[process], ts);
  return std::nullopt;
}

}  // namespace fastci::evidence
