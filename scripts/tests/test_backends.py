"""Both backends on every Python found here (3.9+): same contexts from the same calls."""

import glob
import os
import subprocess
import sys

import pytest

from evidence_schema import read_file
from plugin_under_test import INSTALLED, python_path

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(os.path.dirname(SCRIPTS), "tests", "fixtures", "pytest_plugin")


def interpreters():
    """sys.executable plus other CPythons 3.9+ on PATH or under pyenv (skipped where absent).

    Only sys.executable when the plugin under test is pip-installed: the others have no copy of it.
    """
    found = {sys.executable}
    if INSTALLED:
        return [("%d.%d" % sys.version_info[:2], sys.executable)]
    roots = [os.path.expanduser("~/.pyenv/versions"), os.environ.get("PYENV_ROOT", "") + "/versions"]
    for root in roots:
        found.update(glob.glob(os.path.join(root, "3.*", "bin", "python3")))
    for minor in range(9, 15):
        for directory in os.environ.get("PATH", "").split(os.pathsep):
            candidate = os.path.join(directory, "python3.%d" % minor)
            if os.access(candidate, os.X_OK):
                found.add(candidate)
    usable = {}
    # The running interpreter first: for its version it is the one with this suite's packages.
    for path in [sys.executable] + sorted(found - {sys.executable}):
        try:
            version = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                     capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        if version and tuple(map(int, version.split("."))) >= (3, 9):
            usable.setdefault(version, path)
    return sorted(usable.items())


CASES = [(version, path, backend) for version, path in interpreters()
         for backend in ("tracer", "monitoring") if backend == "tracer" or tuple(map(int, version.split("."))) >= (3, 12)]


def driver_env():
    env = dict(os.environ, PYTHONPATH=python_path(FIXTURE), PYTHONDONTWRITEBYTECODE="1")
    env.pop("FASTCI_WORKER_CONFIG", None)
    return env


def driver_records(python, backend, folder):
    """The evidence records backend_driver.py writes under `python` with `backend` into `folder`."""
    os.makedirs(str(folder), exist_ok=True)
    result = subprocess.run([python, os.path.join(SCRIPTS, "tests", "backend_driver.py"), str(folder), FIXTURE,
                             backend], capture_output=True, text=True, env=driver_env(), timeout=300)
    assert result.returncode == 0, result.stderr
    return read_file(result.stdout.strip())


@pytest.mark.parametrize("version,python,backend", CASES, ids=["%s-%s" % (c[0], c[2]) for c in CASES])
def test_backend_records_contexts(tmp_path, version, python, backend):
    records = driver_records(python, backend, tmp_path)
    assert records[0]["environment"]["python"].startswith(version + ".")
    contexts = {}
    for record in records:
        if record["type"] == "context" and record["function"] == "minitrain/layers.py::linear":
            contexts.setdefault(record["test"], set()).add((tuple(record["callers"]), record["arguments"]))
    short = {"float32": "fp32", "bfloat16": "bf16"}
    for dtype in ("float32", "bfloat16"):
        x = "x:tensor[%s,2,cpu,strided];weight:tensor[fp32,2,cpu,strided]" % short[dtype]
        fp32 = "x:tensor[fp32,2,cpu,strided];weight:tensor[fp32,2,cpu,strided]"
        block = ("minitrain/layers.py::Block.forward",)
        # the block's first layer sees the input dtype, the second the fp32 output of the cast
        assert contexts["driver::%s" % dtype] == {
            ((), x + ";sequence_parallel:False"), ((), x + ";sequence_parallel:True"),
            (block, x + ";sequence_parallel:False"), (block, fp32 + ";sequence_parallel:False"),
        }, contexts
    coverage = [r for r in records if r["type"] == "coverage" and r["file"] == "minitrain/layers.py"]
    assert {r["test"] for r in coverage} == {"driver::float32", "driver::bfloat16"}
    has_coverage_py = subprocess.run([python, "-c", "import coverage"], env=driver_env(), capture_output=True).returncode == 0
    if backend == "monitoring" or has_coverage_py:
        lines = {line for r in coverage for first, last in r["lines"] for line in range(first, last + 1)}
        source = open(os.path.join(FIXTURE, "minitrain", "layers.py")).read().splitlines()
        assert next(i for i, t in enumerate(source, 1) if "x = gather_sequence(x)" in t) in lines
    knobs = [r for r in records if r["type"] == "context" and r["function"] == "minitrain/layers.py::TransformerConfig.__init__"]
    assert knobs and "num_layers:int[2-3]" in knobs[0]["arguments"]


def context_keys(records):
    """(test, function, callers, arguments, arcs) of every context record: the pruning key. Both backends
    attach the arcs the test took in the function's own code (docs/plugin.md)."""
    return {(r["test"], r["function"], tuple(r["callers"]), r["arguments"], tuple(map(tuple, r["arcs"])))
            for r in records if r["type"] == "context"}


BOTH = [(version, path) for version, path in interpreters() if tuple(map(int, version.split("."))) >= (3, 12)]


def with_coverage(python, folder):
    """`python`, or a virtual environment over it with coverage.py from PyPI where it has none: the
    tracer backend's arcs come from coverage.py, and a key without them would compare nothing."""
    if subprocess.run([python, "-c", "import coverage"], capture_output=True).returncode == 0:
        return python
    os.makedirs(str(folder), exist_ok=True)
    venv = os.path.join(str(folder), "venv")
    made = subprocess.run([python, "-m", "venv", venv], capture_output=True, text=True, timeout=300)
    inside = os.path.join(venv, "bin", "python")
    if made.returncode == 0:
        made = subprocess.run([inside, "-m", "pip", "install", "-q", "coverage"], capture_output=True, text=True,
                              timeout=600)
    if made.returncode != 0:
        pytest.skip("coverage.py is not installed for %s and could not be: %s" % (python, made.stderr[-300:]))
    return inside


@pytest.mark.parametrize("version,python", BOTH, ids=[v for v, _ in BOTH])
def test_both_backends_give_the_same_context_keys(tmp_path, version, python):
    # Pruning compares contexts recorded by whichever backend a CI job's Python used: callers, arguments
    # and the arcs the test took in the function's own code must be the same.
    python = with_coverage(python, tmp_path)
    keys = {backend: context_keys(driver_records(python, backend, tmp_path / backend))
            for backend in ("tracer", "monitoring")}
    assert keys["tracer"], "no contexts recorded"
    assert all(arcs for *_, arcs in keys["tracer"]), "contexts without arcs: coverage.py did not measure"
    assert keys["tracer"] == keys["monitoring"], (keys["tracer"] ^ keys["monitoring"])


OLDER = [(version, path) for version, path in interpreters() if tuple(map(int, version.split("."))) < (3, 12)]


@pytest.mark.parametrize("version,python", BOTH, ids=[v for v, _ in BOTH])
def test_a_job_on_an_older_python_and_one_on_3_12_give_the_same_context_keys(tmp_path, version, python):
    # A store fed by CI jobs on two Pythons: the tracer below 3.12, sys.monitoring from 3.12 on. Their
    # bytecode differs too (comprehensions inlined since 3.12): the keys must not.
    if not OLDER:
        pytest.skip("no Python below 3.12 here")
    older_version, older = OLDER[-1]
    older = with_coverage(older, tmp_path / "older")
    tracer = context_keys(driver_records(older, "tracer", tmp_path / "tracer"))
    monitoring = context_keys(driver_records(python, "monitoring", tmp_path / "monitoring"))
    assert tracer and all(arcs for *_, arcs in tracer), "contexts without arcs: coverage.py did not measure"
    assert tracer == monitoring, (older_version, tracer ^ monitoring)
