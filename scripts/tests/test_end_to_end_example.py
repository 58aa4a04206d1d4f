"""The whole loop on the bundled example: run its tests under the plugin, ingest the evidence with
`fastci ingest`, plan the router change with `fastci-analyze`, and check the exact plan.

Needs the built binaries (FASTCI_BUILD_DIR, default build/); skipped when they are absent.
"""

import json
import os
import sys

from built_binaries import ANALYZE, FASTCI, NEEDS_BINARIES, ROOT, run
from plugin_under_test import environment as plugin_environment


pytestmark = NEEDS_BINARIES


PLUGIN_ENV = plugin_environment()


def example_with_evidence(tmp_path):
    """The example repository at its base commit, its tests run under the plugin: (repo, JSONL files)."""
    repo = tmp_path / "repo"
    run(os.path.join(ROOT, "scripts", "make_example_repo.sh"), str(repo))
    run("git", "-C", str(repo), "checkout", "-q", "base")
    evidence = tmp_path / "evidence"
    out = run(sys.executable, "-m", "pytest", "-q", "-p", "fastci_pytest", f"--fastci-evidence={evidence}",
              "-p", "no:cacheprovider", "tests", cwd=repo, env=PLUGIN_ENV)
    assert "17 passed" in out
    files = sorted(str(p) for p in evidence.glob("*.jsonl"))
    assert files
    return repo, files


def test_evidence_narrows_the_static_plan_exactly(tmp_path):
    repo, files = example_with_evidence(tmp_path)
    ingested = run(FASTCI, "--repo", str(repo), "ingest", *files)
    assert "17 tests" in ingested

    run("git", "-C", str(repo), "checkout", "-q", "change")
    plan_file = tmp_path / "plan.json"
    run(ANALYZE, "--repo", str(repo), "--base", "base", "--head", "change", "--out", str(plan_file), "-q")
    plan = json.loads(plan_file.read_text())

    selected = {t["id"] for t in plan["tests"]}
    # Statically six tests reach the router; the evidence shows that the dense model
    # (num_experts=0) never runs it, so only five are left.
    assert selected == {
        "tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[1]",
        "tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[2]",
        "tests/unit/test_router.py::TestTopKRouter::test_weights_normalised",
        "tests/unit/test_model.py::test_forward_keeps_shape[4]",
        "tests/unit/test_smoke.py::test_package_imports",
    }
    skipped = {t["id"]: t["reason"] for t in plan["skipped"]}
    assert skipped["tests/unit/test_model.py::test_forward_keeps_shape[0]"].startswith("evidence:")
    for test in plan["tests"]:
        kinds = {r["kind"] for r in test["reasons"]}
        assert kinds & {"evidence", "always-run"}, test
    assert plan["summary"]["selected"] == 5
    assert plan["summary"]["tests_total"] == 17

    why = run(FASTCI, "--repo", str(repo), "explain", "tests/unit/test_model.py::test_forward_keeps_shape[0]")
    assert "SKIPPED" in why


def test_replay_compares_strategies_on_the_example_with_evidence(tmp_path):
    repo, files = example_with_evidence(tmp_path)
    store = tmp_path / "evidence.db"
    run(FASTCI, "--repo", str(repo), "ingest", "--store", f"sqlite://{store}", *files)

    # The change breaks one router test; every test takes 10 s on one GPU of a 2-GPU cluster.
    collected = run(sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider", "tests",
                    cwd=repo, env=PLUGIN_ENV)
    ids = [line for line in collected.splitlines() if "::" in line]
    assert len(ids) == 17
    failing = "tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[2]"
    history = {
        "format": "fastci-history/1", "repository": "repo", "evidence_store": "evidence.db", "cluster_gpus": 2,
        "commits": [{"commit": "change", "base": "base",
                     "results": [{"id": i, "outcome": "failed" if i == failing else "passed", "seconds": 10,
                                  "gpus": 1} for i in ids]}],
    }
    (tmp_path / "history.json").write_text(json.dumps(history))
    out = run(FASTCI, "replay", "--history", str(tmp_path / "history.json"), "--state-dir", str(tmp_path / "state"),
              "--strategy", "run-all,coverage-only,fastci-select,fastci-prioritize")
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in out.splitlines() if line.startswith("| ") and "/" in line.split("|")[2]}
    # tests run, latency (h), GPU-hours, failures caught, APFD, APFDc, coverage retention
    assert rows["run-all"][0] == "17 / 17" and rows["run-all"][3] == "1 / 1"
    # Four tests ran the changed line at base; the smoke test is fastci's always-run rule.
    assert rows["coverage-only"][0] == "4 / 17" and rows["coverage-only"][3] == "1 / 1"
    assert rows["fastci-select"][0] == "5 / 17" and rows["fastci-select"][3] == "1 / 1"
    for name in ("coverage-only", "fastci-select", "fastci-prioritize"):
        assert rows[name][6] == "1.000", (name, rows[name])
    assert rows["run-all"][1] == "0.025"      # 90 s
    assert rows["fastci-select"][1] == "0.008"  # 3 rounds of 10 s on 2 GPUs
