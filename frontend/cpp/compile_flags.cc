#include "frontend/cpp/compile_flags.h"

#include "frontend/facts.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fastci::frontend::cpp {
namespace {

namespace fs = std::filesystem;

/// Flags whose value is a path and may come as "-Ipath" or "-I path".
constexpr std::string_view kPathFlags[] = {"-isystem", "-iquote", "-idirafter", "-include", "-I"};
/// Flags whose value is kept as written.
constexpr std::string_view kValueFlags[] = {"-D", "-U"};

fs::path absolute_from(const fs::path& directory, const std::string& value) {
  fs::path path(value);
  if (path.is_relative()) path = directory / path;
  return path.lexically_normal();
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

bool is_cuda_source(const fs::path& path) {
  const std::string extension = path.extension().string();
  return extension == ".cu" || extension == ".cuh";
}

std::vector<std::string> split_command_line(const std::string& command) {
  std::vector<std::string> words;
  std::string current;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < command.size()) {
        current += command[++i];
      } else {
        current += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      current += command[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(current);
      current.clear();
      in_word = false;
    } else {
      current += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(current);
  return words;
}

std::vector<std::string> parse_relevant_flags(const std::vector<std::string>& arguments,
                                              const fs::path& directory) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    bool handled = false;
    for (std::string_view flag : kPathFlags) {
      if (!starts_with(argument, flag)) continue;
      std::string value = argument.substr(flag.size());
      if (value.empty() && i + 1 < arguments.size()) value = arguments[++i];
      if (!value.empty() && value[0] == '=') value = value.substr(1);  // nvcc's -isystem=DIR
      if (value.empty()) break;
      kept.emplace_back(flag);
      kept.push_back(absolute_from(directory, value).string());
      handled = true;
      break;
    }
    if (handled) continue;
    for (std::string_view flag : kValueFlags) {
      if (!starts_with(argument, flag)) continue;
      std::string value = argument.substr(flag.size());
      if (value.empty() && i + 1 < arguments.size()) value = arguments[++i];
      if (!value.empty()) kept.push_back(std::string(flag) + value);
      handled = true;
      break;
    }
    if (handled) continue;
    if (starts_with(argument, "-std=") || starts_with(argument, "--std=")) {
      kept.push_back(argument.substr(argument[1] == '-' ? 1 : 0));
    } else if ((argument == "-std" || argument == "--std") && i + 1 < arguments.size()) {
      kept.push_back("-std=" + arguments[++i]);
    }
    // Everything else (-O, -g, -gencode, --expt-relaxed-constexpr, -Xcompiler, -o, -c, the
    // source itself) changes code generation, not what the parser sees.
  }
  return kept;
}

util::Result<CompileDatabase> read_compile_database(const fs::path& file) {
  std::ifstream stream(file);
  if (!stream) return util::Error{"cannot read compile database", file.string(), 0};
  nlohmann::json json = nlohmann::json::parse(stream, nullptr, false);
  if (json.is_discarded() || !json.is_array())
    return util::Error{"expected a JSON array of compile commands", file.string(), 0};
  CompileDatabase database;
  std::size_t index = 0;
  for (const auto& entry : json) {
    ++index;
    if (!entry.is_object() || !entry.contains("file") || !entry["file"].is_string() ||
        !entry.contains("directory") || !entry["directory"].is_string())
      return util::Error{"entry " + std::to_string(index) + " lacks a \"file\" or \"directory\" string",
                         file.string(), 0};
    const fs::path directory = entry["directory"].get<std::string>();
    std::vector<std::string> arguments;
    if (entry.contains("arguments") && entry["arguments"].is_array()) {
      for (const auto& argument : entry["arguments"])
        if (argument.is_string()) arguments.push_back(argument.get<std::string>());
    } else if (entry.contains("command") && entry["command"].is_string()) {
      arguments = split_command_line(entry["command"].get<std::string>());
    } else {
      return util::Error{"entry " + std::to_string(index) + " has neither \"arguments\" nor \"command\"",
                         file.string(), 0};
    }
    if (!arguments.empty()) arguments.erase(arguments.begin());  // the compiler
    const std::string source = absolute_from(directory, entry["file"].get<std::string>()).string();
    database[source] = DatabaseEntry{parse_relevant_flags(arguments, directory)};
  }
  return database;
}

namespace {

bool is_header_name(const fs::path& path) {
  const std::string name = path.filename().string();
  return is_native_source(name) && !is_native_translation_unit(name);
}

/// The names a file's `#include` lines give, with whether they are quoted.
std::vector<std::pair<std::string, bool>> includes_of(const fs::path& file) {
  std::vector<std::pair<std::string, bool>> out;
  std::ifstream stream(file);
  std::string line;
  while (std::getline(stream, line)) {
    std::size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line[at] != '#') continue;
    at = line.find_first_not_of(" \t", at + 1);
    if (at == std::string::npos || line.compare(at, 7, "include") != 0) continue;
    at = line.find_first_of("<\"", at + 7);
    if (at == std::string::npos) continue;
    const char close = line[at] == '<' ? '>' : '"';
    const std::size_t end = line.find(close, at + 1);
    if (end != std::string::npos && end > at + 1) out.emplace_back(line.substr(at + 1, end - at - 1), close == '"');
  }
  return out;
}

std::size_t common_prefix(const fs::path& a, const fs::path& b) {
  std::size_t n = 0;
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end() && *i == *j; ++i, ++j) ++n;
  return n;
}

/// Adds the folders of repository headers that includes name and `directories` miss, following
/// repository headers transitively (bounded: a guess must not cost more than the parse).
void add_folders_of_named_headers(const fs::path& repository, const fs::path& source, const HeaderIndex& headers,
                                  std::vector<fs::path>& directories) {
  constexpr std::size_t kMaxFiles = 512;
  std::error_code error;
  std::vector<fs::path> pending{source};
  std::set<fs::path> seen{source};
  while (!pending.empty() && seen.size() < kMaxFiles) {
    const fs::path file = pending.back();
    pending.pop_back();
    for (const auto& [name, quoted] : includes_of(file)) {
      std::optional<fs::path> found;
      if (quoted && fs::is_regular_file(file.parent_path() / name, error)) found = file.parent_path() / name;
      for (const fs::path& directory : directories)
        if (!found && fs::is_regular_file(directory / name, error)) found = directory / name;
      if (!found) {
        // The nearest header of that path; two equally near ones are a guess not worth making.
        std::optional<fs::path> best;
        std::size_t best_score = 0;
        bool tie = false;
        for (const fs::path& candidate : headers.matching(name)) {
          std::size_t score = common_prefix(candidate, source);
          if (!best || score > best_score) best = candidate, best_score = score, tie = false;
          else if (score == best_score) tie = true;
        }
        if (!best || tie) continue;
        fs::path folder = *best;
        const fs::path named(name);
        for (auto part = named.begin(); part != named.end(); ++part) folder = folder.parent_path();
        directories.push_back(folder);
        found = best;
      }
      const fs::path normal = found->lexically_normal();
      const auto relative = normal.lexically_relative(repository);
      if (relative.empty() || *relative.begin() == "..") continue;  // a system or stub header
      if (seen.insert(normal).second) pending.push_back(normal);
    }
  }
}

}  // namespace

HeaderIndex HeaderIndex::scan(const fs::path& repository) {
  HeaderIndex index;
  std::error_code error;
  fs::recursive_directory_iterator it(repository, fs::directory_options::skip_permission_denied, error), end;
  for (; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory(error)) {
      if (!name.empty() && name.front() == '.') it.disable_recursion_pending();
      continue;
    }
    if (is_header_name(it->path()) && it->is_regular_file(error)) index.by_file_name_.emplace(name, it->path());
  }
  return index;
}

std::vector<fs::path> HeaderIndex::matching(std::string_view include) const {
  std::vector<fs::path> out;
  const fs::path wanted(include);
  const std::string suffix = "/" + wanted.generic_string();
  auto [first, last] = by_file_name_.equal_range(wanted.filename().string());
  for (auto it = first; it != last; ++it)
    if (it->second.generic_string().ends_with(suffix)) out.push_back(it->second);
  return out;
}

std::vector<fs::path> guessed_include_directories(const fs::path& repository, const fs::path& source,
                                                  const HeaderIndex* headers) {
  std::vector<fs::path> directories{source.parent_path()};
  std::vector<fs::path> ancestors;
  std::error_code error;
  for (fs::path folder = source.parent_path();; folder = folder.parent_path()) {
    ancestors.push_back(folder);
    for (const char* name : {"include", "includes"}) {
      const fs::path candidate = folder / name;
      if (fs::is_directory(candidate, error)) directories.push_back(candidate);
    }
    if (folder == repository || !folder.has_relative_path() || folder == folder.parent_path()) break;
    const auto relative = folder.lexically_relative(repository);
    if (relative.empty() || *relative.begin() == "..") break;
  }
  // Then the include folders of the ancestors' other children, nearest first: op builders add
  // siblings' headers (DeepSpeed's ragged ops under inference/v2/ragged read
  // inference/v2/kernels/includes). After the direct ones, so a nearer header of the same name wins.
  for (const fs::path& folder : ancestors) {
    if (folder == repository) break;  // the root's children are whole subprojects
    std::vector<fs::path> children;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error))
      if (it->is_directory(error) && std::find(ancestors.begin(), ancestors.end(), it->path()) == ancestors.end())
        children.push_back(it->path());
    std::sort(children.begin(), children.end());
    for (const fs::path& child : children)
      for (const char* name : {"include", "includes"}) {
        const fs::path candidate = child / name;
        if (fs::is_directory(candidate, error) &&
            std::find(directories.begin(), directories.end(), candidate) == directories.end())
          directories.push_back(candidate);
      }
  }
  if (headers != nullptr) add_folders_of_named_headers(repository, source, *headers, directories);
  return directories;
}

std::string clang_resource_directory() { return FASTCI_CLANG_RESOURCE_DIR; }

std::vector<std::string> build_command_line(const FlagInputs& inputs) {
  std::vector<std::string> line{"clang++"};
  const bool cuda = is_cuda_source(inputs.source);
  const bool has_cuda = inputs.cuda_path.has_value();
  if (cuda) {
    line.insert(line.end(), {"-x", "cuda", "--cuda-host-only", "-nocudalib", "-Wno-unknown-cuda-version"});
    if (has_cuda) {
      line.push_back("--cuda-path=" + inputs.cuda_path->string());
    } else {
      line.push_back("-nocudainc");
    }
  } else {
    line.insert(line.end(), {"-x", "c++"});
  }
  bool has_standard = false;
  if (inputs.database_entry != nullptr) {
    for (const std::string& flag : inputs.database_entry->arguments) {
      if (starts_with(flag, "-std=")) has_standard = true;
      line.push_back(flag);
    }
  } else {
    for (const fs::path& directory : guessed_include_directories(inputs.repository, inputs.source, inputs.headers))
      line.push_back("-I" + directory.string());
  }
  if (!has_standard) line.push_back("-std=c++17");
  // Stubs come after the repository's own include paths and before the system's, so a
  // repository that vendors real headers keeps them while /usr/include/torch is not used.
  if (!inputs.stub_directory.empty()) line.push_back("-isystem" + inputs.stub_directory);
  if (has_cuda) {
    // .cpp files of CUDA extensions include cuda_runtime.h, cuda_fp16.h, cublas_v2.h as well.
    line.push_back("-isystem" + (*inputs.cuda_path / "include" / "cccl").string());
    if (!cuda) line.push_back("-isystem" + (*inputs.cuda_path / "include").string());
  } else if (cuda && !inputs.stub_directory.empty()) {
    line.insert(line.end(), {"-include", inputs.stub_directory + "/fastci/cuda_minimal.h"});
  }
  // -Wno-c++11-narrowing: GCC, which builds torch extensions, only warns about narrowing a
  // non-constant in braces (at::empty({rows, cols}) with size_t rows); Clang makes it an error.
  line.insert(line.end(), {"-resource-dir", clang_resource_directory(), "-ferror-limit=0", "-w",
                           "-Wno-c++11-narrowing", "-fno-caret-diagnostics", "-fsyntax-only"});
  line.insert(line.end(), inputs.extra_arguments.begin(), inputs.extra_arguments.end());
  line.push_back(inputs.source.string());
  return line;
}

}  // namespace fastci::frontend::cpp
