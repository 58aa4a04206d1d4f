"""Evidence narrows only from a test's latest complete, passing run at its full size: regression tests on
evidence the plugin really recorded. Each case is a run that executed less than the test runs at its
full size (an early error, a smaller world_size recorded for shrinking) or whose lines no longer match
(a stale file); before, each of them ruled the test's static path out and the plan skipped a test
that reaches the change.

Needs the built binaries (FASTCI_BUILD_DIR, default build/); skipped when they are absent.
"""

import json
import os
import sys

from built_binaries import ANALYZE, FASTCI, NEEDS_BINARIES, ROOT, run
from plugin_under_test import environment as plugin_environment

PLUGIN_ENV = plugin_environment()
REDUCE = "tests/test_comm.py::TestReduce::test_reduce"  # world_size 4 by its class
MODEL_MOE = "tests/unit/test_model.py::test_forward_keeps_shape[4]"

pytestmark = NEEDS_BINARIES

COMM = '''def all_reduce(values, world_size):
    return [v * world_size for v in values]


def reduce_if_distributed(values, world_size):
    if world_size > 1:
        return all_reduce(values, world_size)
    return values
'''

TEST_COMM = '''from pkg.comm import reduce_if_distributed


class TestReduce:
    world_size = 4

    def test_reduce(self, request):
        mark = request.node.get_closest_marker("world_size")
        size = mark.args[0] if mark else self.world_size
        assert len(reduce_if_distributed([1.0, 2.0], size)) == 2
'''


def git(repo, *args):
    return run("git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args).strip()


def record(repo, evidence, *arguments, expect=0):
    run(sys.executable, "-m", "pytest", "-q", "-p", "fastci_pytest", f"--fastci-evidence={evidence}",
        "-p", "no:cacheprovider", *arguments, cwd=repo, env=PLUGIN_ENV, expect=expect)
    files = sorted(str(p) for p in evidence.glob("*.jsonl"))
    assert files
    return files


def plan(repo, tmp_path, base, head):
    out = tmp_path / "plan.json"
    run(ANALYZE, "--repo", str(repo), "--base", base, "--head", head, "--out", str(out), "-q")
    result = json.loads(out.read_text())
    return result, {t["id"]: t for t in result["tests"]}, {t["id"]: t["reason"] for t in result["skipped"]}


def comm_repo(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "comm.py").write_text(COMM)
    (repo / "tests" / "test_comm.py").write_text(TEST_COMM)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def change_all_reduce(repo, message, body="    return [v * float(world_size) for v in values]\n"):
    path = repo / "pkg" / "comm.py"
    text = path.read_text().splitlines(keepends=True)
    text[1] = body
    path.write_text("".join(text))
    git(repo, "commit", "-qam", message)
    return git(repo, "rev-parse", "HEAD")


def test_a_run_at_a_smaller_size_never_rules_a_static_path_out(tmp_path):
    repo = comm_repo(tmp_path)
    # Recorded at world_size 1 for shrinking: that run never calls all_reduce.
    small = record(repo, tmp_path / "small", REDUCE, f"--fastci-world-size={REDUCE}=1")
    run(FASTCI, "--repo", str(repo), "ingest", *small)
    change_all_reduce(repo, "all_reduce changes")
    result, tests, skipped = plan(repo, tmp_path, "HEAD~1", "HEAD")
    assert REDUCE in tests, skipped.get(REDUCE)
    assert "ran at 1 GPUs, not at the test's full size of 4" in tests[REDUCE]["evidence_run"]["none"]
    assert [r["kind"] for r in tests[REDUCE]["reasons"]] == ["static-path"]
    assert "no run may narrow it" in tests[REDUCE]["reasons"][0]["text"]

    # Once the full-size run is recorded, it decides: it ran all_reduce, so an evidence reason stands.
    git(repo, "checkout", "-q", "HEAD~1")
    full = record(repo, tmp_path / "full", "tests")
    run(FASTCI, "--repo", str(repo), "ingest", *full)
    git(repo, "checkout", "-q", "main")
    result, tests, skipped = plan(repo, tmp_path, "HEAD~1", "HEAD")
    assert tests[REDUCE]["evidence_run"]["gpus"] == 4 and tests[REDUCE]["evidence_run"]["outcome"] == "passed"
    assert [r["kind"] for r in tests[REDUCE]["reasons"]] == ["evidence"]
    assert "(passed, 4 GPUs)" in tests[REDUCE]["reasons"][0]["text"]
    assert tests[REDUCE]["reasons"][0]["witness"], "the confirmed static path keeps its witness"
    why = run(FASTCI, "--repo", str(repo), "explain", REDUCE)
    assert "evidence decided by run" in why and "passed, 4 GPUs" in why


def test_stale_evidence_never_rules_a_static_path_out(tmp_path):
    repo = comm_repo(tmp_path)
    full = record(repo, tmp_path / "full", "tests", f"--fastci-world-size={REDUCE}=4")
    run(FASTCI, "--repo", str(repo), "ingest", *full)
    # all_reduce's lines change after the run, then change again in the commit planned.
    change_all_reduce(repo, "first", "    scaled = [v * world_size for v in values]\n    return scaled\n")
    change_all_reduce(repo, "second", "    scaled = [v * float(world_size) for v in values]\n")
    result, tests, skipped = plan(repo, tmp_path, "HEAD~1", "HEAD")
    assert REDUCE in tests, skipped.get(REDUCE)
    assert "its evidence is stale" in tests[REDUCE]["reasons"][0]["text"], tests[REDUCE]["reasons"]


def test_a_run_that_failed_early_never_rules_a_static_path_out(tmp_path):
    repo = tmp_path / "example"
    run(os.path.join(ROOT, "scripts", "make_example_repo.sh"), str(repo))
    # A branch off the base where the MoE model test errors before it builds the model: its run covers
    # none of the router.
    git(repo, "checkout", "-q", "-b", "broken", "base")
    test_model = repo / "tests" / "unit" / "test_model.py"
    test_model.write_text(test_model.read_text().replace(
        "    config.num_experts = num_experts\n",
        "    if num_experts:\n        raise RuntimeError('no accelerator for the experts')\n"
        "    config.num_experts = num_experts\n"))
    git(repo, "commit", "-qam", "the MoE test errors early")
    files = record(repo, tmp_path / "evidence", "tests", expect=1)
    run(FASTCI, "--repo", str(repo), "ingest", *files)
    git(repo, "checkout", "-q", "change")
    result, tests, skipped = plan(repo, tmp_path, "base", "change")
    assert MODEL_MOE in tests, skipped.get(MODEL_MOE)
    assert "did not pass (failed)" in tests[MODEL_MOE]["evidence_run"]["none"], tests[MODEL_MOE]
    # The dense model's run passed and never ran the router: that one still rules its path out.
    assert skipped["tests/unit/test_model.py::test_forward_keeps_shape[0]"].startswith("evidence: run ")
    assert "(passed" in skipped["tests/unit/test_model.py::test_forward_keeps_shape[0]"]
