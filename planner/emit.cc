#include "planner/emit.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fastci::planner {

util::Result<EmitFormat> emit_format_from_string(std::string_view name) {
  if (name == "pytest-args") return EmitFormat::pytest_args;
  if (name == "github-matrix") return EmitFormat::github_matrix;
  if (name == "gitlab-pipeline") return EmitFormat::gitlab_pipeline;
  return util::Error{"unknown emit format '" + std::string(name) +
                     "' (expected pytest-args, github-matrix or gitlab-pipeline)"};
}

std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\"'\"'";
    else out += c;
  }
  return out + "'";
}

std::vector<Shard> make_shards(const Plan& plan, int shards_per_class) {
  shards_per_class = std::max(shards_per_class, 1);
  std::map<int, std::vector<const PlanEntry*>> by_gpus;
  for (const auto& e : plan.prioritized.ordered) by_gpus[e.gpus].push_back(&e);
  std::vector<Shard> out;
  for (auto& [gpus, entries] : by_gpus) {
    std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(shards_per_class), entries.size());
    std::vector<Shard> shards(count, Shard{gpus, {}, 0});
    // Risk order with backfilling across the class's shards: each test in plan order goes to the
    // shard that frees up first, so the highest-ranked tests start at once, one per shard.
    std::vector<std::vector<std::size_t>> members(count);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      auto lightest = std::min_element(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) {
                        return a.predicted_seconds < b.predicted_seconds;
                      }) - shards.begin();
      shards[lightest].predicted_seconds += entries[i]->predicted_seconds;
      members[lightest].push_back(i);
    }
    for (std::size_t s = 0; s < count; ++s) {
      for (auto i : members[s]) shards[s].tests.push_back(entries[i]->selected.test.id);
      out.push_back(std::move(shards[s]));
    }
  }
  return out;
}

namespace {

std::string json_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// The plan's entries by test id, to turn a shard's ids back into what the plan decided for each.
using EntryIndex = std::map<std::string, const PlanEntry*>;

EntryIndex index_entries(const Plan& plan) {
  EntryIndex out;
  for (const auto& e : plan.prioritized.ordered) out.emplace(e.selected.test.id, &e);
  return out;
}

/// The plan's entries of one shard, in shard order.
std::vector<const PlanEntry*> entries_of(const EntryIndex& index, const Shard& shard) {
  std::vector<const PlanEntry*> out;
  for (const auto& id : shard.tests)
    if (auto it = index.find(id); it != index.end()) out.push_back(it->second);
  return out;
}

std::vector<const PlanEntry*> all_entries(const Plan& plan) {
  std::vector<const PlanEntry*> out;
  for (const auto& e : plan.prioritized.ordered) out.push_back(&e);
  return out;
}

/// The audit's tests as plan entries (no overrides: they run as written), one group per GPU count:
/// each group is one shard, run after the plan's own and never blocking.
std::map<int, std::vector<PlanEntry>> audit_groups(const Plan& plan) {
  std::map<int, std::vector<PlanEntry>> out;
  for (const auto& a : plan.audit) {
    PlanEntry e;
    e.selected.test = a.test;
    e.gpus = e.full_gpus = std::max(a.test.gpus, 1);
    out[e.gpus].push_back(std::move(e));
  }
  return out;
}

std::vector<const PlanEntry*> pointers(const std::vector<PlanEntry>& entries) {
  std::vector<const PlanEntry*> out;
  for (const auto& e : entries) out.push_back(&e);
  return out;
}

std::vector<std::string> ids(const std::vector<PlanEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.selected.test.id);
  return out;
}

/// One argument per line for `python -m pytest @FILE` (argparse's file syntax: no shell, each line
/// one argument); a newline in an id would split it, so it is written escaped, as pytest writes ids.
std::string argument_line(const std::string& word) {
  std::string out;
  for (char c : word) out += c == '\n' ? std::string("\\n") : c == '\r' ? std::string("\\r") : std::string(1, c);
  return out + "\n";
}

std::string pytest_args(const Plan& plan) {
  auto entries = all_entries(plan);
  // No arguments would make pytest run the whole suite: an empty plan ignores every path instead
  // (pytest then reports "no tests ran" and exits 5).
  if (entries.empty()) return "--ignore-glob=*\n";
  std::string out;
  for (const auto& word : pytest_arguments(entries)) out += argument_line(word);
  return out;
}

/// GitHub Actions step outputs (`>> "$GITHUB_OUTPUT"`): has_tests, and the matrix whose entries
/// carry each shard's pytest arguments as a list, for the job to pass through the environment
/// (`env: ARGS: ${{ toJSON(matrix.args) }}`), never through the shell.
std::string github_matrix(const Plan& plan, int shards) {
  nlohmann::json include = nlohmann::json::array();
  auto index = index_entries(plan);
  int n = 0;
  for (const auto& s : make_shards(plan, shards))
    include.push_back({{"shard", ++n}, {"gpus", s.gpus}, {"tests", s.tests},
                       {"args", pytest_arguments(entries_of(index, s))},
                       {"predicted_seconds", static_cast<int>(s.predicted_seconds)}, {"audit", false}});
  // Audit shards: `continue-on-error: ${{ matrix.audit }}` keeps their failures from blocking.
  for (const auto& [gpus, entries] : audit_groups(plan))
    include.push_back({{"shard", ++n}, {"gpus", gpus}, {"tests", ids(entries)},
                       {"args", pytest_arguments(pointers(entries))}, {"predicted_seconds", 0}, {"audit", true}});
  return std::string("has_tests=") + (include.empty() ? "false" : "true") + "\nmatrix=" +
         json_text(nlohmann::json{{"include", include}}) + "\n";
}

std::string gitlab_pipeline(const Plan& plan, int shards) {
  std::ostringstream out;
  out << "# fastci child pipeline for " << plan.changes.base.substr(0, 12) << ".."
      << plan.changes.head.substr(0, 12) << "\n";
  auto all = make_shards(plan, shards);
  auto audit = audit_groups(plan);
  if (!audit.empty()) out << "stages: [test, audit]\n";
  else out << "stages: [test]\n";
  if (all.empty() && audit.empty()) {
    // GitLab rejects an empty pipeline: one job says there is nothing to run.
    out << "\nfastci-nothing-to-run:\n  stage: test\n  script:\n    - "
        << json_text("echo 'fastci: no test is affected'") << "\n";
    return out.str();
  }
  auto index = index_entries(plan);
  int n = 0;
  for (const auto& s : all) {
    std::string command = "python -m pytest";
    for (const auto& word : pytest_arguments(entries_of(index, s))) command += " " + shell_quote(word);
    // JSON strings are YAML double-quoted scalars: quotes, newlines and YAML specials stay text.
    out << "\nfastci-shard-" << ++n << ":\n  stage: test\n  variables:\n    FASTCI_GPUS: "
        << json_text(std::to_string(s.gpus)) << "\n  script:\n    - " << json_text(command) << "\n";
  }
  // The audit runs after the tests, whatever they did, and its failures never block the pipeline.
  int a = 0;
  for (const auto& [gpus, entries] : audit) {
    std::string command = "python -m pytest";
    for (const auto& word : pytest_arguments(pointers(entries))) command += " " + shell_quote(word);
    out << "\nfastci-audit-" << ++a << ":\n  stage: audit\n  when: always\n  allow_failure: true\n  variables:\n"
        << "    FASTCI_GPUS: " << json_text(std::to_string(gpus)) << "\n    FASTCI_AUDIT: \"1\"\n  script:\n    - "
        << json_text(command) << "\n";
  }
  return out.str();
}

}  // namespace

std::string emit_plan(const Plan& plan, EmitFormat format, int shards) {
  switch (format) {
    case EmitFormat::pytest_args: return pytest_args(plan);
    case EmitFormat::github_matrix: return github_matrix(plan, shards);
    case EmitFormat::gitlab_pipeline: return gitlab_pipeline(plan, shards);
  }
  return {};
}

}  // namespace fastci::planner
