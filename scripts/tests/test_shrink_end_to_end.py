"""Workload shrinking end to end: a distributed test recorded by the plugin at its own world size and
at a smaller one (--fastci-world-size), both runs ingested, and the plan runs it at the smaller size
only because the two runs' evidence is the same; the plan's command then runs and passes.

Needs the built binaries (FASTCI_BUILD_DIR, default build/); skipped when they are absent.
"""

import json
import sys

from built_binaries import ANALYZE, FASTCI, NEEDS_BINARIES, run
from plugin_under_test import environment as plugin_environment

from test_plugin import copy_fixture

PLUGIN_ENV = plugin_environment()
FORK = "tests/test_distributed.py::TestRanks::test_process_fork"  # world_size 4 by its mark
POOL = "tests/test_distributed.py::TestRanks::test_pool[spawn]"   # world_size 2 by its class

pytestmark = NEEDS_BINARIES


def record(repo, evidence, *arguments):
    run(sys.executable, "-m", "pytest", "-q", "-p", "fastci_pytest", f"--fastci-evidence={evidence}",
        "-p", "no:cacheprovider", *arguments, cwd=repo, env=PLUGIN_ENV, expect=1)  # the fixture has failing tests
    return sorted(str(p) for p in evidence.glob("*.jsonl"))


def test_a_test_shrinks_only_where_the_smaller_run_shows_the_same_evidence(tmp_path):
    repo = copy_fixture(tmp_path / "repo")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    run(*git, "tag", "base")
    full = record(repo, tmp_path / "full", "tests")
    # the same two tests again at world_size 1: test_process_fork does the same work (its body ignores
    # the size); test_pool's smaller run is recorded too, at the size its own body hard-codes
    small = run(sys.executable, "-m", "pytest", "-q", "-p", "fastci_pytest", f"--fastci-evidence={tmp_path / 'small'}",
                "-p", "no:cacheprovider", FORK, f"--fastci-world-size={FORK}=1", cwd=repo, env=PLUGIN_ENV)
    assert "1 passed" in small
    small_files = sorted(str(p) for p in (tmp_path / "small").glob("*.jsonl"))
    ingested = run(FASTCI, "--repo", str(repo), "ingest", *full, *small_files)
    # each session (pytest process and the processes its tests started) is one run: without that the
    # worker's file would be a run of its own and the evidence of test_process_fork split in two
    assert ingested.count("more files of its session") == 2, ingested

    # a change in what both distributed tests run
    path = repo / "minitrain" / "distributed.py"
    path.write_text(path.read_text().replace("    process.start()\n", "    process.start()  # started\n    pass\n"))
    run(*git, "commit", "-qam", "change")
    plan_file = tmp_path / "plan.json"
    run(ANALYZE, "--repo", str(repo), "--base", "base", "--head", "HEAD", "--out", str(plan_file), "-q")
    plan = json.loads(plan_file.read_text())
    tests = {t["id"]: t for t in plan["tests"]}
    fork = tests[FORK]
    assert fork["gpus"] == 1
    assert fork["shrink"]["full_gpus"] == 4 and fork["shrink"]["mode"] == "exact"
    assert fork["overrides"] == {"pytest": f"--fastci-world-size={FORK}=1"}
    assert "world_size 4 -> 1" in fork["shrink"]["reason"]
    # no run of the others at another size: they run as written
    assert all("shrink" not in t for i, t in tests.items() if i != FORK)
    # the plan's command runs (the override is the plugin's option)
    command = fork["command"]
    assert command == ["python", "-m", "pytest", "-p", "fastci_pytest", f"--fastci-world-size={FORK}=1", FORK]
    out = run(sys.executable, *command[1:], "-p", "no:cacheprovider", cwd=repo, env=PLUGIN_ENV)
    assert "1 passed" in out
    explained = run(FASTCI, "--repo", str(repo), "explain", "--plan", str(plan_file), FORK)
    assert "shrunk (exact): world_size 4 -> 1" in explained
