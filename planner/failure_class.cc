#include "planner/failure_class.h"

#include <algorithm>

namespace fastci::planner {
namespace {

std::string short_id(const std::string& commit) { return commit.substr(0, 10); }

const char* outcome_word(bool failed) { return failed ? "failed" : "passed"; }

/// C, C++ and CUDA sources and headers: code that Python coverage does not see, so a change to one
/// may reach any test.
bool is_native(const std::string& path) {
  for (const char* ext : {".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hh", ".hpp"})
    if (path.ends_with(ext)) return true;
  return false;
}

/// Files that are code to a test without coverage: Python and native sources (documentation, CI
/// files and data are not).
bool is_code(const std::string& path) { return path.ends_with(".py") || is_native(path); }

}  // namespace

const char* to_string(FailureClass kind) {
  switch (kind) {
    case FailureClass::none: return "none";
    case FailureClass::known_failing: return "known-failing";
    case FailureClass::flaky: return "flaky";
  }
  return "none";
}

FailureClassification classify_failures(const std::vector<OutcomeAt>& runs, const std::string& base,
                                        const ReachedCodeChanged& changed) {
  // Flakiness is a property of the test, not of one commit: a flip anywhere in its history counts.
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const auto& before = runs[i - 1];
    const auto& after = runs[i];
    if (before.failed == after.failed) continue;
    if (before.commit == after.commit)
      return {FailureClass::flaky, std::string("failed and passed at ") + short_id(after.commit)};
    if (!changed(before.commit, after.commit))
      return {FailureClass::flaky, std::string(outcome_word(after.failed)) + " at " + short_id(after.commit) +
                                       " after it " + outcome_word(before.failed) + " at " + short_id(before.commit) +
                                       ", with no change to code it reaches in between"};
  }
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    if (it->commit != base) continue;
    // The base's own run decides: a test passing there and failing now is the change's failure.
    if (!it->failed) return {};
    return {FailureClass::known_failing, "failed in the run of the base " + short_id(base)};
  }
  // No run at the base: the latest run before it decides, when the commits from there to the base
  // changed no code the test reaches (the base's run would have failed the same way).
  if (!runs.empty() && runs.back().failed && !changed(runs.back().commit, base))
    return {FailureClass::known_failing, "failed at " + short_id(runs.back().commit) + ", and " +
                                             short_id(runs.back().commit) + ".." + short_id(base) +
                                             " changed no code it reaches"};
  return {};
}

const std::optional<std::vector<std::string>>& ReachedCode::files_changed(const std::string& from,
                                                                          const std::string& to) {
  auto key = std::make_pair(from, to);
  auto cached = changed_files_.find(key);
  if (cached == changed_files_.end()) {
    std::optional<std::vector<std::string>> files;
    if (auto diffs = repo_.diff(from, to); diffs.ok()) {
      files.emplace();
      for (const auto& d : *diffs) {
        if (!d.old_path.empty()) files->push_back(d.old_path);
        if (!d.new_path.empty() && d.new_path != d.old_path) files->push_back(d.new_path);
      }
    }
    cached = changed_files_.emplace(key, std::move(files)).first;
  }
  return cached->second;
}

util::Result<bool> ReachedCode::changed(const std::string& test_id, const std::string& from, const std::string& to) {
  if (from == to) return false;
  const auto& files = files_changed(from, to);
  if (!files) return true;  // a commit the repository lacks: its code is unknown
  auto covered = covered_.find(test_id);
  if (covered == covered_.end()) {
    std::set<std::string> paths;
    if (store_) {
      auto coverage = store_->coverage_of(test_id, /*all_runs=*/true);
      if (!coverage.ok()) return coverage.error();
      for (const auto& c : *coverage) paths.insert(c.coverage.path);
    }
    covered = covered_.emplace(test_id, std::move(paths)).first;
  }
  if (covered->second.empty()) return std::any_of(files->begin(), files->end(), is_code);
  for (const auto& path : *files)
    if (is_native(path) || covered->second.count(path)) return true;
  return false;
}

util::Result<FailureClassification> classify_test(const std::string& test_id, const std::vector<OutcomeAt>& runs,
                                                  const std::string& base, ReachedCode& reached) {
  // A flip needs a failure: a test that never failed has nothing to classify and no coverage to read.
  if (std::none_of(runs.begin(), runs.end(), [](const OutcomeAt& r) { return r.failed; })) return FailureClassification{};
  util::Status failed;
  auto changed = [&](const std::string& from, const std::string& to) {
    auto c = reached.changed(test_id, from, to);
    if (!c.ok()) failed = c.error();
    return !c.ok() || *c;
  };
  auto classified = classify_failures(runs, base, changed);
  if (!failed.ok()) return failed.error();
  return classified;
}

util::Result<std::map<std::string, std::vector<OutcomeAt>>> outcomes_in_store(evidence::Store& store) {
  auto tests = store.all_tests();
  if (!tests.ok()) return tests.error();
  std::map<std::string, std::vector<OutcomeAt>> out;
  for (const auto& id : *tests) {
    auto history = store.history(id);
    if (!history.ok()) return history.error();
    for (const auto& h : *history) {
      using evidence::Outcome;
      if (!h.outcome) continue;
      if (*h.outcome == Outcome::failed || *h.outcome == Outcome::error) out[id].push_back({h.commit, true});
      else if (*h.outcome == Outcome::passed) out[id].push_back({h.commit, false});
    }
  }
  return out;
}

util::Result<std::map<std::string, FailureClassification>> classify_from_store(
    evidence::Store& store, const GitRepository& repo, const std::string& base, const std::vector<std::string>& tests) {
  auto outcomes = outcomes_in_store(store);
  if (!outcomes.ok()) return outcomes.error();
  ReachedCode reached(repo, &store);
  std::map<std::string, FailureClassification> out;
  for (const auto& id : tests) {
    auto runs = outcomes->find(id);
    if (runs == outcomes->end()) continue;
    auto classified = classify_test(id, runs->second, base, reached);
    if (!classified.ok()) return classified.error();
    if (classified->kind != FailureClass::none) out[id] = std::move(*classified);
  }
  return out;
}

}  // namespace fastci::planner
