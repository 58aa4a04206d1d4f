"""scripts/history_pack.py pack on a small real git history: every mutant becomes a patch that recreates
its commit, and a pack that fails half way leaves the previous pack as it was."""

import json
import os
import subprocess
import sys

import pytest

from git_repo import git
from plugin_under_test import SCRIPTS

PACK = os.path.join(SCRIPTS, "history_pack.py")


@pytest.fixture
def recording(tmp_path):
    out = tmp_path / "out"
    repo = out / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "m.py").write_text("def f(x):\n    return x + 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "m.py").write_text("def f(x):\n    return x + 2\n")
    git(repo, "commit", "-qam", "real")
    real = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "mutant/1")
    (repo / "m.py").write_text("def f(x):\n    return x - 2\n")
    git(repo, "commit", "-qam", "mutant 1")
    mutant = git(repo, "rev-parse", "HEAD")
    (out / "evidence.db").write_bytes(b"store")
    history = {"repository": "repo", "evidence_store": "evidence.db",
               "commits": [{"commit": real, "base": base},
                           {"kind": "mutant", "commit": mutant, "mutant_of": real, "mutant_id": 1,
                            "branch": "mutant/1", "base": base}]}
    (out / "history.json").write_text(json.dumps(history))
    return out, history, mutant


def pack(out, dest):
    return subprocess.run([sys.executable, PACK, "pack", "--history", str(out / "history.json"), "--dest", str(dest)],
                          capture_output=True, text=True)


def test_each_mutant_is_packed_as_a_patch_that_recreates_it(recording, tmp_path):
    out, _, mutant = recording
    dest = tmp_path / "pack"
    result = pack(out, dest)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((dest / "mutants.json").read_text())
    assert [m["commit"] for m in manifest] == [mutant]
    patch = (dest / manifest[0]["patch"]).read_text()
    assert "-    return x + 2" in patch and "+    return x - 2" in patch
    assert (dest / "history.json.xz").exists() and (dest / "evidence.db.xz").exists()


def test_a_pack_that_stops_half_way_leaves_the_previous_pack(recording, tmp_path):
    out, history, mutant = recording
    dest = tmp_path / "pack"
    assert pack(out, dest).returncode == 0
    before = sorted(os.listdir(dest / "mutants")), (dest / "mutants.json").read_text()
    # a mutant commit the clone lacks, packed before the one it has
    history["commits"].insert(1, dict(history["commits"][1], commit="0" * 40, mutant_id=2, branch="mutant/2"))
    (out / "history.json").write_text(json.dumps(history))
    result = pack(out, dest)
    assert result.returncode != 0 and "0000000000" in result.stderr
    assert (sorted(os.listdir(dest / "mutants")), (dest / "mutants.json").read_text()) == before
    assert not [n for n in os.listdir(dest) if n.startswith(".mutants-")], "no staging folder left behind"
