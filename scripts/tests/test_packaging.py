"""The plugin as a distribution: its version is fastci's, and a pip-installed copy is found by pytest
through its pytest11 entry point, once, with or without the plans' `-p fastci_pytest`."""

import os
import subprocess
import sys

import pytest

import fastci_pytest
from fastci_pytest import writer
from plugin_under_test import INSTALLED, SCRIPTS, environment, fastci_version

installed_only = pytest.mark.skipif(not INSTALLED, reason="checks a pip-installed copy (FASTCI_PYTEST_INSTALLED=1)")


def test_version_is_fastcis():
    assert fastci_pytest.__version__ == fastci_version()
    assert writer.COLLECTOR == "fastci_pytest " + fastci_version()


@installed_only
def test_the_installed_copy_is_the_one_under_test():
    from importlib import metadata
    assert not os.path.abspath(fastci_pytest.__file__).startswith(SCRIPTS + os.sep), fastci_pytest.__file__
    distribution = metadata.distribution("fastci-pytest")
    assert distribution.version == fastci_version()
    entry_points = [e for e in distribution.entry_points if e.group == "pytest11"]
    assert [(e.name, e.value) for e in entry_points] == [("fastci_pytest", "fastci_pytest")]


def run_pytest(project, *arguments, **environment_overrides):
    env = environment()
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    env.update(environment_overrides)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments],
                          cwd=str(project), env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n")
    return tmp_path


@installed_only
@pytest.mark.parametrize("arguments,autoload", [([], True), (["-p", "fastci_pytest"], True),
                                                (["-p", "fastci_pytest"], False)],
                         ids=["entry-point", "entry-point-and-p", "p-without-autoload"])
def test_pytest_registers_the_installed_plugin_once(project, arguments, autoload):
    evidence = project / "evidence"
    overrides = {} if autoload else {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    result = run_pytest(project, *arguments, "--trace-config", "--fastci-evidence=%s" % evidence, "test_one.py",
                        **overrides)
    assert result.returncode == 0, result.stdout + result.stderr
    registered = [line for line in result.stdout.splitlines()
                  if line.startswith("PLUGIN registered: <module 'fastci_pytest'")]
    assert len(registered) == 1, result.stdout
    assert os.path.dirname(fastci_pytest.__file__) in registered[0]
    assert len(list(evidence.glob("fastci-*.jsonl"))) == 1


@installed_only
def test_without_autoload_or_p_pytest_does_not_know_the_plugin(project):
    result = run_pytest(project, "--fastci-evidence=%s" % (project / "evidence"), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    assert result.returncode == 4 and "--fastci-evidence" in result.stderr, result.stdout + result.stderr
