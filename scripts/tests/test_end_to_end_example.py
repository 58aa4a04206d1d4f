"""The whole loop on the bundled example: run its tests under the plugin, ingest the evidence with
`fastci ingest`, plan the router change with `fastci-analyze`, and check the exact plan.

Needs the built binaries (FASTCI_BUILD_DIR, default build/); skipped when they are absent.
"""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("FASTCI_BUILD_DIR", os.path.join(ROOT, "build"))
ANALYZE = os.path.join(BUILD, "cli", "fastci-analyze")
FASTCI = os.path.join(BUILD, "cli", "fastci")

pytestmark = pytest.mark.skipif(not (os.access(ANALYZE, os.X_OK) and os.access(FASTCI, os.X_OK)),
                                reason="fastci binaries are not built")


def run(*args, cwd=None, env=None):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_evidence_narrows_the_static_plan_exactly(tmp_path):
    repo = tmp_path / "repo"
    run(os.path.join(ROOT, "scripts", "make_example_repo.sh"), str(repo))
    run("git", "-C", str(repo), "checkout", "-q", "base")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scripts"))
    evidence = tmp_path / "evidence"
    out = run(sys.executable, "-m", "pytest", "-q", "-p", "fastci_pytest", f"--fastci-evidence={evidence}",
              "-p", "no:cacheprovider", "tests", cwd=repo, env=env)
    assert "17 passed" in out
    files = sorted(str(p) for p in evidence.glob("*.jsonl"))
    assert files
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
