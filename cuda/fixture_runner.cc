#include "cuda/fixture_runner.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace fastci::cuda::testing {

ProgramRun run_program(const std::string& program, const std::vector<std::string>& arguments,
                       const std::map<std::string, std::string>& environment) {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; *entry; ++entry) {
    std::string text = *entry;
    auto equals = text.find('=');
    if (equals != std::string::npos) merged[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const auto& [name, value] : environment) {
    if (value.empty()) merged.erase(name);
    else merged[name] = value;
  }
  std::vector<std::string> environment_text;
  for (const auto& [name, value] : merged) environment_text.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& text : environment_text) envp.push_back(text.data());
  envp.push_back(nullptr);
  std::vector<std::string> argument_text{program};
  argument_text.insert(argument_text.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& text : argument_text) argv.push_back(text.data());
  argv.push_back(nullptr);

  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_ends[1]);
  ProgramRun run;
  if (spawned != 0) {
    ::close(pipe_ends[0]);
    throw std::runtime_error("cannot start " + program);
  }
  char buffer[4096];
  ssize_t got = 0;
  while ((got = ::read(pipe_ends[0], buffer, sizeof buffer)) > 0) run.output.append(buffer, static_cast<std::size_t>(got));
  ::close(pipe_ends[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

namespace {

/// The directories this program made; a test that fails half-way still leaves nothing behind.
struct TemporaryDirectories {
  std::vector<std::string> paths;
  ~TemporaryDirectories() {
    std::error_code ignored;
    for (const auto& path : paths) std::filesystem::remove_all(path, ignored);
  }
};

TemporaryDirectories& temporary_directories() {
  static TemporaryDirectories made;
  return made;
}

}  // namespace

std::string make_temporary_directory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "fastci-cuda-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  temporary_directories().paths.push_back(pattern);
  return pattern;
}

std::vector<std::string> list_directory(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<nlohmann::json> read_evidence(const std::string& directory, const std::string& prefix) {
  std::vector<nlohmann::json> records;
  for (const std::string& name : list_directory(directory)) {
    if (name.rfind(prefix, 0) != 0) continue;
    std::ifstream in(directory + "/" + name);
    std::string line;
    while (std::getline(in, line)) records.push_back(nlohmann::json::parse(line));
  }
  return records;
}

}  // namespace fastci::cuda::testing
