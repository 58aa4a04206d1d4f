"""Which copy of fastci_pytest these tests exercise, and how a subprocess gets the same one.

By default the checkout's: scripts/ goes first on sys.path and on every subprocess's PYTHONPATH, and the
cross-interpreter tests run every Python found here on it. With FASTCI_PYTEST_INSTALLED=1, the copy pip
installed into the interpreter running the tests: nothing is put on any path, and no other interpreter is
used (each needs its own install: scripts/check_plugin_pythons.sh runs the suite in a fresh venv per Python).
"""

import os
import re

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTALLED = os.environ.get("FASTCI_PYTEST_INSTALLED") == "1"


def python_path(*extra):
    """PYTHONPATH for a subprocess that loads the plugin under test, then the `extra` folders ("" for none)."""
    return os.pathsep.join(([] if INSTALLED else [SCRIPTS]) + [str(folder) for folder in extra])


def environment(*extra, base=None):
    """`base` (default os.environ) with PYTHONPATH set by python_path(); unset where that is empty."""
    env = dict(os.environ if base is None else base)
    path = python_path(*extra)
    if path:
        env["PYTHONPATH"] = path
    else:
        env.pop("PYTHONPATH", None)  # an empty entry would put the working folder on sys.path
    return env


def fastci_version():
    """fastci's version as its top-level CMakeLists.txt writes it, read here independently of the plugin."""
    with open(os.path.join(os.path.dirname(SCRIPTS), "CMakeLists.txt"), encoding="utf-8") as handle:
        return re.search(r"project\(fastci VERSION (\S+)", handle.read()).group(1)
