"""The recorder's mutant shortcut (scripts/record_deepspeed_history.py --mutant-tests covering) on the real
start evidence of the deepspeed-cpu-latest history: which tests a mutant runs, and how the results of
the others are carried over from the real commit."""

import json
import lzma
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from plugin_under_test import SCRIPTS

# The recorder is a script beside the plugin, not part of it: appended, so that an installed plugin under
# test is not shadowed by the checkout's.
if SCRIPTS not in sys.path:
    sys.path.append(SCRIPTS)
import record_deepspeed_history as recorder  # noqa: E402

HISTORY = os.path.join(os.path.dirname(SCRIPTS), "tests", "data", "history", "deepspeed-cpu-latest")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    packed = os.path.join(HISTORY, "evidence.db.xz")
    if not os.path.exists(packed):
        pytest.skip("no deepspeed-cpu-latest evidence in this checkout")
    path = str(tmp_path_factory.mktemp("evidence") / "evidence.db")
    with lzma.open(packed, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


def subset_ids():
    with open(os.path.join(HISTORY, "tests.txt"), encoding="utf-8") as fh:
        return set("tests/" + line.strip() for line in fh if line.strip() and not line.startswith("#"))


def candidate(path, function, executed=True, lang="py"):
    return {"file": path, "function": function, "executed": executed, "lang": lang}


def contexts_of(store, function):
    con = sqlite3.connect(store)
    try:
        return set(r[0] for r in con.execute(
            "SELECT DISTINCT t.name FROM contexts c JOIN tests t ON t.id = c.test_id WHERE c.function = ?",
            (function,)))
    finally:
        con.close()


def test_a_function_runs_the_tests_whose_evidence_executed_it(store):
    # get_accelerator is read by about a third of the subset, through the worker processes too
    covering = recorder.covering_tests(store, candidate("accelerator/real_accelerator.py", "get_accelerator"))
    assert covering == contexts_of(store, "accelerator/real_accelerator.py::get_accelerator")
    assert 100 < len(covering) < len(subset_ids())
    assert covering <= subset_ids(), "ids as the history records them (tests/unit/...)"
    assert any("TestCPUAdam" in t for t in covering), "DistributedTest workers' contexts count"


def test_the_link_into_deepspeed_finds_the_same_tests(store):
    # deepspeed/accelerator is a symbolic link to accelerator/ in DeepSpeed's tree; a diff names either
    via_link = recorder.covering_tests(store, candidate("deepspeed/accelerator/real_accelerator.py",
                                                        "get_accelerator"))
    direct = recorder.covering_tests(store, candidate("accelerator/real_accelerator.py", "get_accelerator"))
    assert via_link == direct


def test_a_method_is_named_by_its_qualified_name(store):
    covering = recorder.covering_tests(store, candidate("deepspeed/runtime/engine.py",
                                                        "DeepSpeedEngine.__check_params"))
    assert covering and covering == contexts_of(store, "deepspeed/runtime/engine.py::DeepSpeedEngine.__check_params")


def test_what_the_evidence_cannot_narrow_runs_everything(store):
    assert recorder.covering_tests(store, candidate("deepspeed/runtime/engine.py", None)) is None  # module level
    assert recorder.covering_tests(store, candidate("csrc/adam/cpu_adam.cpp", None, lang="cpp")) is None
    assert recorder.covering_tests(store, candidate("deepspeed/runtime/engine.py", "DeepSpeedEngine.no_such_method",
                                                    executed=False)) is None
    # marked executed but absent from the store (another store, a renamed function): nothing to narrow to
    assert recorder.covering_tests(store, candidate("deepspeed/runtime/engine.py", "DeepSpeedEngine.no_such_method")) is None


def test_results_of_the_tests_not_run_are_the_real_commits():
    real = [{"id": "a", "outcome": "passed", "seconds": 1.0, "gpus": 1},
            {"id": "b", "outcome": "failed", "seconds": 2.0, "gpus": 2, "message": "x"},
            {"id": "c", "outcome": "passed", "seconds": 3.0, "gpus": 1}]
    ran = [{"id": "c", "outcome": "failed", "seconds": 4.0, "gpus": 1, "message": "mutant"},
           {"id": "new", "outcome": "passed", "seconds": 0.5, "gpus": 1}]
    merged = recorder.merge_with_real(ran, real)
    assert [r["id"] for r in merged] == ["a", "b", "c", "new"], "the real run's order, then tests it lacked"
    assert merged[0] == dict(real[0], copied=True) and merged[1] == dict(real[1], copied=True)
    assert merged[2] == ran[0] and "copied" not in merged[2]
    assert "copied" not in real[0], "the real commit's entry is not changed"


def test_why_a_mutant_ran_everything():
    class Args:
        mutant_tests = "covering"

    assert "C++" in recorder.whole_run_reason(Args, candidate("csrc/x.cpp", None, lang="cpp"), False)
    assert "module level" in recorder.whole_run_reason(Args, candidate("deepspeed/x.py", None), False)
    assert "did not execute deepspeed/x.py::f" in recorder.whole_run_reason(Args, candidate("deepspeed/x.py", "f"),
                                                                             False)
    assert "shortcut check" in recorder.whole_run_reason(Args, candidate("deepspeed/x.py", "f"), True)


def test_mutants_go_only_on_lines_the_start_evidence_saw_executed():
    import random

    run = dict(candidate("deepspeed/a.py", "f"), line=3)
    cold = dict(candidate("deepspeed/a.py", "g", executed=False), line=9)
    assert recorder.choose_mutants([cold, run], 2, random.Random(1)) == [run]
    assert recorder.choose_mutants([cold], 2, random.Random(1)) == [], "a commit nothing executed gets no mutant"
    assert recorder.choose_mutants([cold], 2, random.Random(1), unexecuted=True) == [cold]


def _entry(outcomes):
    return {"results": [{"id": test, "outcome": outcome} for test, outcome in outcomes.items()]}


def test_a_test_failing_at_some_real_commits_kills_no_mutant():
    # deepspeed-cpu-latest's test_pipeline_checkpoint_loading[3] fails at 47 of the 74 commits and passes at
    # the others; the 1-bit LAMB cases fail at every commit (never a killer: they pass at no real commit).
    flaky, broken, steady = "t::flaky", "t::lamb", "t::steady"
    real = [_entry({flaky: "failed", broken: "failed", steady: "passed"}),
            _entry({flaky: "passed", broken: "failed", steady: "passed"}),
            _entry({flaky: "error", broken: "failed", steady: "skipped"})]
    unstable = recorder.unstable_tests(real)
    assert unstable == {flaky}
    mutant = {"killed_by": [flaky, steady]}
    assert recorder.drop_unstable_killers(mutant, unstable)
    assert mutant == {"killed_by": [steady], "unstable_failures": [flaky]}
    assert not recorder.drop_unstable_killers(mutant, unstable), "applied once: nothing left to move"


def test_commits_with_narrowable_mutants_come_first():
    cpp = dict(candidate("csrc/adam/cpu_adam_impl.cpp", None, lang="cpp"))
    module_level = candidate("deepspeed/utils/x.py", None)
    in_function = candidate("deepspeed/utils/x.py", "f")
    unexecuted = candidate("deepspeed/utils/x.py", "g", executed=False)
    commits = {0: [cpp], 1: [unexecuted], 2: [module_level, in_function], 3: [module_level], 4: []}
    order = sorted(commits, key=lambda j: recorder.mutant_commit_rank(commits[j], j))
    assert order == [2, 0, 3, 1, 4]
    # a probed commit's mutants need no probe: among the narrowable, first
    commits[5] = [in_function]
    order = sorted(commits, key=lambda j: recorder.mutant_commit_rank(commits[j], j, probed=j == 5))
    assert order == [5, 2, 0, 3, 1, 4]


def test_tests_a_mutant_run_did_not_collect_count_as_errors():
    # a mutant breaking an import: pytest reports the files that failed to collect, not their tests
    real = [{"id": "tests/unit/a.py::t1", "outcome": "passed", "gpus": 1},
            {"id": "tests/unit/a.py::t2", "outcome": "passed", "gpus": 2},
            {"id": "tests/unit/b.py::t", "outcome": "passed", "gpus": 1}]
    ran = [{"id": "tests/unit/b.py::t", "outcome": "passed", "seconds": 1.0, "gpus": 1}]
    results, missing = recorder.add_uncollected(ran, real, set(r["id"] for r in real))
    assert missing == ["tests/unit/a.py::t1", "tests/unit/a.py::t2"]
    by_id = {r["id"]: r for r in results}
    assert by_id["tests/unit/a.py::t2"]["outcome"] == "error" and by_id["tests/unit/a.py::t2"]["gpus"] == 2
    assert by_id["tests/unit/b.py::t"]["outcome"] == "passed"
    # a covering run: only its covering tests were expected; the others' results are copied, not missing
    copied = ran + [dict(real[0], copied=True), dict(real[1], copied=True)]
    results, missing = recorder.add_uncollected(copied, real, {"tests/unit/b.py::t"}, ran=["tests/unit/b.py::t"])
    assert missing == [] and results == copied
    results, missing = recorder.add_uncollected(copied, real, {"tests/unit/a.py::t1", "tests/unit/b.py::t"},
                                                ran=["tests/unit/b.py::t"])
    assert missing == ["tests/unit/a.py::t1"]
    assert [r["outcome"] for r in results if r["id"] == "tests/unit/a.py::t1"] == ["error"]
    assert sum(1 for r in results if r["id"] == "tests/unit/a.py::t1") == 1


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo)] + list(args), check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid"))


def _commit(repo, files):
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "c")
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, stdout=subprocess.PIPE,
                          text=True).stdout.strip()


START = '''import os

LIMIT = 1


def f(x):
    y = x + 1
    return y


def g(x):
    if x:
        x -= 1
    x *= 2
    return x


class C:
    kind = "a"

    def m(self):
        return f(1)
'''


def test_the_drift_since_the_start_names_functions_at_either_commit_and_files_whose_module_level_changed(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    start = _commit(repo, {"deepspeed/a.py": START, "deepspeed/b.py": START, "deepspeed/c.py": START,
                           "deepspeed/d.py": START,
                           "tests/unit/test_a.py": "def test_a():\n    assert True\n"})
    b = START.replace("    x *= 2\n", "")  # a line deleted: only the old side names g
    b = b.replace("class C:\n", "# a comment at module level changes nothing\nclass C:\n")
    b = b.replace("    return y\n", "    return y\n\n\ndef h():\n    return 2\n")  # a new function, blank lines around
    c = START.replace('    kind = "a"', '    kind = "b"')  # a class body runs at import
    a = START.replace("LIMIT = 1", "LIMIT = 2").replace("return f(1)", "return f(2)")
    d = START.replace("    x *= 2\n", "    x *=\n")  # does not parse: what it changes is unknown
    end = _commit(repo, {"deepspeed/a.py": a, "deepspeed/b.py": b, "deepspeed/c.py": c, "deepspeed/d.py": d,
                         "tests/unit/test_a.py": "def test_a():\n    assert 1\n", "docs/x.py": "X = 1\n"})
    funcs, files = recorder.code_drift(str(repo), start, end, ["deepspeed", "tests"])
    assert funcs == {"deepspeed/a.py::C.m", "deepspeed/b.py::g", "deepspeed/b.py::h", "deepspeed/d.py::g",
                     "tests/unit/test_a.py::test_a"}
    assert files == {"deepspeed/a.py", "deepspeed/c.py", "deepspeed/d.py"}, \
        "docs/ is not under the paths; b.py's comment is no code"
    assert recorder.code_drift(str(repo), start, start, ["deepspeed"]) == (set(), set())


def test_drifted_tests_are_those_whose_start_evidence_ran_changed_code(store):
    engine = "deepspeed/runtime/engine.py::DeepSpeedEngine.save_checkpoint"
    assert recorder.drifted_tests(store, ({engine}, set())) == contexts_of(store, engine)
    con = sqlite3.connect(store)
    try:
        covering_lr = set(r[0] for r in con.execute(
            "SELECT DISTINCT t.name FROM coverage c JOIN tests t ON t.id = c.test_id JOIN files f ON f.id = c.file_id "
            "WHERE f.path = 'deepspeed/runtime/lr_schedules.py'"))
    finally:
        con.close()
    assert covering_lr and recorder.drifted_tests(store, (set(), {"deepspeed/runtime/lr_schedules.py"})) == covering_lr
    both = recorder.drifted_tests(store, ({engine}, {"deepspeed/runtime/lr_schedules.py"}))
    assert both == contexts_of(store, engine) | covering_lr
    # the link deepspeed/accelerator -> accelerator/ names the same code
    assert recorder.drifted_tests(store, ({"deepspeed/accelerator/real_accelerator.py::get_accelerator"}, set())) == \
        contexts_of(store, "accelerator/real_accelerator.py::get_accelerator")
    assert recorder.tests_without_evidence(store, ["tests/unit/no_such_test.py::t"] + sorted(covering_lr)) == \
        {"tests/unit/no_such_test.py::t"}


def test_the_drift_rule_holds_the_killers_the_start_evidence_missed(store):
    # Mutant 70 (a condition in Init.__init__, at commit 37) ran every test as a shortcut check: 10 of its
    # killers are outside the tests whose start evidence executed Init.__init__. The functions the real
    # commits up to it changed (those the start evidence saw executed, as the history lists them) lead to
    # all 10.
    history = json.load(lzma.open(os.path.join(HISTORY, "history.json.xz")))
    changed = set()
    for entry in history["commits"]:
        if entry.get("kind") == "mutant":
            continue
        changed.update(entry["executed_changed_functions"])
        if entry["commit"].startswith("a375b7f13e"):
            break
    m70 = next(e for e in history["commits"] if e.get("mutant_id") == 70)
    missed = set(m70["shortcut_check"]["killers_outside_covering"])
    cand = candidate(m70["mutation"]["file"], m70["mutation"]["function"])
    narrow = recorder.covering_tests(store, cand)
    assert len(missed) == 10 and not missed & narrow
    drifted = recorder.drifted_tests(store, (changed, set()))
    assert missed <= drifted
    # before a probe at the commit says which of them still run Init.__init__, every drifted test runs
    unprobed = recorder.covering_with_probe(narrow, drifted, {"outcomes": {}, "executed": {}}, cand)
    assert unprobed == narrow - drifted | drifted and missed <= unprobed


def test_a_probe_at_the_real_commit_decides_the_drifted_tests():
    cand = candidate("deepspeed/accelerator/real_accelerator.py", "get_accelerator")
    steady, left, moved_in, moved_out, failing, absent = ("t::steady", "t::left", "t::in", "t::out", "t::failing",
                                                          "t::absent")
    narrow = {steady, left, moved_out}
    drifted = {left, moved_in, moved_out, failing, absent}
    probe = {"outcomes": {left: "passed", moved_in: "passed", moved_out: "skipped", failing: "failed"},
             # the evidence names the file through the link or where it lies: both count
             "executed": {moved_in: ["accelerator/real_accelerator.py::get_accelerator"],
                          left: ["accelerator/real_accelerator.py::set_accelerator"],
                          failing: []}}
    covering = recorder.covering_with_probe(narrow, drifted, probe, cand)
    assert covering == {steady, moved_in, failing, absent}, \
        "kept: not drifted; in: ran it at the commit; failing or not run at the probe: cannot tell, so run"


def test_evidence_records_are_read_by_type_and_a_cut_line_is_skipped(tmp_path):
    (tmp_path / "fastci-1-a.jsonl").write_text(
        '{"type":"run","schema":1}\n'
        '{"type":"context","test":"tests/unit/a.py::t","function":"deepspeed/x.py::f","count":1}\n'
        '{"type":"coverage","test":"tests/unit/a.py::t","file":"deepspeed/x.py","lines":[[1,2]]}\n'
        '{"type":"context","test":"tests/unit/a.py::t","function":"deepspeed/x.py::g","cou')
    (tmp_path / "fastci-2-b.jsonl").write_text(
        '{"type":"context","test":"tests/unit/b.py::t","function":"deepspeed/x.py::f","count":2}\n')
    contexts = list(recorder.evidence_records(str(tmp_path), ("context",)))
    assert [(r["test"], r["function"]) for r in contexts] == [("tests/unit/a.py::t", "deepspeed/x.py::f"),
                                                              ("tests/unit/b.py::t", "deepspeed/x.py::f")]
    both = list(recorder.evidence_records(str(tmp_path), ("context", "coverage")))
    assert [r["type"] for r in both] == ["context", "coverage", "context"]


def test_a_run_is_done_when_every_collected_test_reported():
    collected = {"event": "collected", "tests": [["tests/unit/a.py::t1", 1], ["tests/unit/a.py::t2", 2]]}
    first = {"event": "result", "id": "tests/unit/a.py::t1", "outcome": "passed"}
    second = {"event": "result", "id": "tests/unit/a.py::t2", "outcome": "failed"}
    assert not recorder.every_test_reported([])
    assert not recorder.every_test_reported([collected, first, {"event": "start", "id": "tests/unit/a.py::t2"}])
    assert recorder.every_test_reported([collected, first, second])


def test_tests_of_a_reused_pool_class_go_together(tmp_path):
    # The plugin attributes a reused pool worker's work to the test it last saw: mutant 70's killers
    # TestOptimizerImplementation::test[...-zero3] had their ZeRO-3 work recorded under [...-zero2].
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    commit = _commit(repo, {"tests/unit/test_x.py": (
        "class DistributedTest:\n    pass\n\n\n"
        "class TestReused(DistributedTest):\n    world_size = 1\n    reuse_dist_env = True\n\n"
        "    def test(self, stage):\n        pass\n\n\n"
        "class TestFresh(DistributedTest):\n    world_size = 2\n\n    def test(self):\n        pass\n")})
    classes = recorder.reused_pool_classes(str(repo), commit)
    assert classes == {"tests/unit/test_x.py::TestReused"}
    ids = ["tests/unit/test_x.py::TestReused::test[zero2]", "tests/unit/test_x.py::TestReused::test[zero3]",
           "tests/unit/test_x.py::TestFresh::test", "tests/unit/test_y.py::test_plain"]
    assert recorder.with_pool_neighbours({ids[0]}, ids, classes) == set(ids[:2])
    assert recorder.with_pool_neighbours({ids[2], ids[3]}, ids, classes) == {ids[2], ids[3]}, \
        "a class that starts a pool per test, and a plain function, stand alone"


def test_a_function_the_start_evidence_never_ran_is_executed_where_the_commits_probe_ran_it(store):
    """Code added since the start has no start evidence; a drifted test that passed at the commit's probe
    and ran it there makes its lines mutant candidates, covered by exactly such tests."""
    added = dict(candidate("deepspeed/runtime/engine.py", "DeepSpeedEngine.new_helper", executed=False),
                 line=10, replacement="x")
    unrun = dict(candidate("deepspeed/runtime/engine.py", "DeepSpeedEngine.other", executed=False),
                 line=20, replacement="y")
    module_level = dict(candidate("deepspeed/runtime/engine.py", None, executed=False), line=1, replacement="z")
    runs, fails, steady = "t::runs", "t::fails", "t::steady"
    drifted = {runs, fails}
    probe = {"outcomes": {runs: "passed", fails: "failed", steady: "passed"},
             "executed": {runs: ["deepspeed/runtime/engine.py::DeepSpeedEngine.new_helper"],
                          fails: ["deepspeed/runtime/engine.py::DeepSpeedEngine.other"],
                          # not drifted: cannot run code the start never saw without a changed path
                          steady: ["deepspeed/runtime/engine.py::DeepSpeedEngine.other"]}}
    cands = [added, unrun, module_level]
    assert recorder.mark_executed_at_commit(cands, drifted, probe) == 1
    assert [c.get("executed_at_commit", False) for c in cands] == [True, False, False]
    assert recorder.covering_tests(store, added) is None, "no start evidence to narrow by"
    assert recorder.covering_with_probe(set(), drifted, probe, added) == {runs, fails}, \
        "ran it at the commit, or failed there so the probe cannot tell"
    recorded = {"mutation": {"lang": "py", "function": added["function"], "file": added["file"],
                             "executed_by_subset": False, "executed_at_commit": True}}
    assert recorder.mutation_candidate(recorded)["executed"], "a recorded mutant keeps how it was found"
