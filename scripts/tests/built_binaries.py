"""The fastci binaries the end-to-end tests drive, and how they run them.

FASTCI_BUILD_DIR (default build/) holds them; a test module sets `pytestmark = NEEDS_BINARIES` to be
skipped where they are not built.
"""

import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("FASTCI_BUILD_DIR", os.path.join(ROOT, "build"))
ANALYZE = os.path.join(BUILD, "cli", "fastci-analyze")
FASTCI = os.path.join(BUILD, "cli", "fastci")

NEEDS_BINARIES = pytest.mark.skipif(not (os.access(ANALYZE, os.X_OK) and os.access(FASTCI, os.X_OK)),
                                    reason="fastci binaries are not built")


def run(*args, cwd=None, env=None, expect=0):
    """Runs a command and returns its standard output; fails the test on another exit status."""
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == expect, f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout
