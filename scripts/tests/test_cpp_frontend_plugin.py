"""The C++/CUDA frontend is a plugin fastci-analyze loads when it parses a unit: from its build folder
here, from lib/fastci/ when installed (scripts/check_install.sh). A binary that cannot find it must not
skip the unit's tests quietly: the unit counts as changed, and the plan says why, naming the file.

Needs the built binaries (FASTCI_BUILD_DIR, default build/); skipped when they are absent.
"""

import json
import os
import shutil
import subprocess

import pytest

from built_binaries import ANALYZE, BUILD, NEEDS_BINARIES, run
from git_repo import git

pytestmark = [NEEDS_BINARIES, pytest.mark.skipif(
    not os.path.exists(os.path.join(BUILD, "frontend", "cpp", "libfastci_cpp_frontend.so")),
    reason="fastci built without the C++/CUDA frontend")]


def commit(repo, message):
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def repository(tmp_path):
    """A unit whose function body changes, and a Python package beside it."""
    repo = tmp_path / "repo"
    (repo / "csrc").mkdir(parents=True)
    (repo / "pkg").mkdir()
    (repo / "tests").mkdir()
    git(tmp_path, "init", "-q", str(repo))
    (repo / "csrc" / "ops.cc").write_text("int add(int a, int b) { return a + b; }\n")
    (repo / "pkg" / "__init__.py").write_text("def f():\n    return 1\n")
    (repo / "tests" / "test_f.py").write_text("from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n")
    commit(repo, "base")
    (repo / "csrc" / "ops.cc").write_text("int add(int a, int b) { return a - b; }\n")
    commit(repo, "change")
    return repo


def plan(analyze, repo, out):
    run(analyze, "--repo", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--out", str(out), "--no-evidence", "-q")
    return json.loads(out.read_text())


def test_the_build_tree_binary_parses_the_unit_through_the_plugin(tmp_path):
    repo = repository(tmp_path)
    changes = plan(ANALYZE, repo, tmp_path / "plan.json")["changes"]
    assert [s["id"] for s in changes["symbols"]] == ["cpp:add(int, int)"]
    assert changes["widenings"] == []


def test_the_analyzer_does_not_map_clang_until_it_parses_cpp():
    linked = subprocess.run(["ldd", ANALYZE], capture_output=True, text=True).stdout
    assert "libclang-cpp" not in linked and "libLLVM" not in linked, linked


def test_a_binary_without_its_plugin_widens_the_unit_and_says_why(tmp_path):
    repo = repository(tmp_path)
    moved = tmp_path / "elsewhere" / "bin" / "fastci-analyze"  # neither its build folder nor an install
    moved.parent.mkdir(parents=True)
    shutil.copy2(ANALYZE, moved)
    changes = plan(str(moved), repo, tmp_path / "plan.json")["changes"]
    assert changes["symbols"] == []
    [widening] = [w for w in changes["widenings"] if w["reason"].startswith("C++/CUDA unit not understood")]
    assert widening["file"] == "csrc/ops.cc"
    expected = str(tmp_path / "elsewhere" / "lib" / "fastci" / "libfastci_cpp_frontend.so")
    assert "cannot load the C++/CUDA frontend" in widening["reason"] and expected in widening["reason"], widening
