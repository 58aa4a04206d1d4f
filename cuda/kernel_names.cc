#include "cuda/kernel_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace fastci::cuda {
namespace {

bool is_open(char c) { return c == '<' || c == '(' || c == '['; }
bool is_close(char c) { return c == '>' || c == ')' || c == ']'; }

/// Index of the '(' that opens the parameter list of a demangled function signature, or npos.
std::size_t parameter_list_start(std::string_view text) {
  std::size_t end = text.find_last_of(')');
  if (end == std::string_view::npos) return end;
  int depth = 0;
  for (std::size_t i = end + 1; i-- > 0;) {
    if (text[i] == ')') ++depth;
    if (text[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

/// Index of the '<' matching the '>' at `close`, or npos.
std::size_t matching_angle(std::string_view text, std::size_t close) {
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (is_close(text[i])) ++depth;
    if (is_open(text[i]) && --depth == 0) return text[i] == '<' ? i : std::string_view::npos;
  }
  return std::string_view::npos;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

/// Start of the qualified name in "ret ns::name" (a top-level space separates the return type).
std::size_t name_start(std::string_view head) {
  int depth = 0;
  for (std::size_t i = head.size(); i-- > 0;) {
    char c = head[i];
    if (is_close(c)) ++depth;
    if (is_open(c)) --depth;
    if (c == ' ' && depth == 0) return i + 1;
  }
  return 0;
}

/// "ret ns::name<args>" part of a signature (everything before the parameter list).
std::string_view signature_head(std::string_view demangled) {
  std::size_t open = parameter_list_start(demangled);
  if (open == std::string_view::npos) return trim(demangled);
  return trim(demangled.substr(0, open));
}

}  // namespace

std::string demangle(std::string_view mangled) {
  if (mangled.size() < 2 || mangled[0] != '_' || mangled[1] != 'Z') return std::string(mangled);
  std::string input(mangled);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return input;
  return out.get();
}

std::vector<std::string> template_arguments(std::string_view demangled) {
  std::string_view head = signature_head(demangled);
  std::vector<std::string> arguments;
  if (head.empty() || head.back() != '>') return arguments;
  std::size_t open = matching_angle(head, head.size() - 1);
  if (open == std::string_view::npos) return arguments;
  std::string_view list = head.substr(open + 1, head.size() - open - 2);
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    if (i == list.size() || (list[i] == ',' && depth == 0)) {
      std::string_view argument = trim(list.substr(start, i - start));
      if (!argument.empty()) arguments.emplace_back(argument);
      start = i + 1;
    } else if (is_open(list[i])) {
      ++depth;
    } else if (is_close(list[i])) {
      --depth;
    }
  }
  return arguments;
}

std::string function_name(std::string_view demangled) {
  std::string_view head = signature_head(demangled);
  if (!head.empty() && head.back() == '>') {
    std::size_t open = matching_angle(head, head.size() - 1);
    if (open != std::string_view::npos) head = trim(head.substr(0, open));
  }
  return std::string(head.substr(name_start(head)));
}

KernelName describe_kernel(std::string_view mangled) {
  KernelName name;
  name.mangled = std::string(mangled);
  name.demangled = demangle(mangled);
  if (name.demangled == name.mangled) {
    name.function = name.mangled;  // extern "C" kernels keep their plain name
    return name;
  }
  name.function = function_name(name.demangled);
  name.template_arguments = template_arguments(name.demangled);
  return name;
}

}  // namespace fastci::cuda
