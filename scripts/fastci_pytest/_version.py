"""fastci_pytest's version, which is fastci's: written once, in project() of fastci's top-level CMakeLists.txt.

Standard library only and no relative imports: setuptools loads this file on its own to stamp the
distribution's version (pyproject.toml), and the plugin names VERSION in its evidence files.
"""

import os
import re

DISTRIBUTION = "fastci-pytest"
# Written by `cmake --install` beside the plugin sources it ships (share/fastci/python/fastci_pytest).
VERSION_FILE = "fastci-version"

_HERE = os.path.dirname(os.path.abspath(__file__))


def _read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def _from_version_file():
    """An installed fastci's copy (or a wheel built from one): the file CMake generated from project()."""
    text = _read(os.path.join(_HERE, VERSION_FILE))
    return text.strip() if text else None


def _from_checkout():
    """A fastci checkout (this folder is scripts/fastci_pytest): project(fastci VERSION x.y.z)."""
    text = _read(os.path.join(_HERE, os.pardir, os.pardir, "CMakeLists.txt"))
    match = re.search(r"^\s*project\(\s*fastci\s+VERSION\s+([0-9][0-9A-Za-z.+-]*)", text or "", re.MULTILINE)
    return match.group(1) if match else None


def _from_metadata():
    """A wheel built from a checkout: the version pip recorded when it installed the distribution."""
    try:
        from importlib import metadata
        return metadata.version(DISTRIBUTION)
    except Exception:  # not installed (PackageNotFoundError), or metadata unreadable
        return None


def find_version():
    """fastci's version from the first of: the generated version file, the checkout, pip's metadata."""
    for source in (_from_version_file, _from_checkout, _from_metadata):
        version = source()
        if version:
            return version
    raise RuntimeError("fastci_pytest: cannot tell its version: no %s in %s, no fastci CMakeLists.txt two folders "
                       "up, and no installed %s distribution; install it with pip or use a fastci checkout"
                       % (VERSION_FILE, _HERE, DISTRIBUTION))


VERSION = find_version()
