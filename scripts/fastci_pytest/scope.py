"""Which code belongs to the repository under test, and how its functions are named in evidence."""

import os
import sys

_THIRD_PARTY_MARKERS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)
_PLUGIN_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _normalized_dir(path):
    """Absolute, symlink-free directory path ending in a separator, so prefix tests are exact."""
    return os.path.join(os.path.realpath(path), "")


class Scope:
    """Decides per code object whether it is repository code and names it `path.py::Qualified.name`."""

    def __init__(self, repository_root, sources=None):
        self.repository_root = _normalized_dir(repository_root)
        self.sources = [_normalized_dir(s) for s in (sources or [repository_root])]
        self._file_cache = {}
        self._excluded = [_normalized_dir(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}
                          if not self.repository_root.startswith(_normalized_dir(p))]

    def relative_file(self, filename):
        """Repository-relative path of a source file, or None when it is not repository code."""
        cached = self._file_cache.get(filename)
        if cached is not None or filename in self._file_cache:
            return cached
        result = self._classify(filename)
        self._file_cache[filename] = result
        return result

    def _classify(self, filename):
        if not filename or filename.startswith("<") or not filename.endswith(".py"):
            return None
        path = os.path.realpath(os.path.abspath(filename))
        if path.startswith(_PLUGIN_DIR) or any(m in path for m in _THIRD_PARTY_MARKERS):
            return None
        if any(path.startswith(p) for p in self._excluded):
            return None
        if not any(path.startswith(s) for s in self.sources):
            return None
        if path.startswith(self.repository_root):
            return path[len(self.repository_root):].replace(os.sep, "/")
        return path.replace(os.sep, "/")


def qualified_name(code, frame=None):
    """Qualified name of a code object; before Python 3.11 it is rebuilt from the first argument's class."""
    name = getattr(code, "co_qualname", None)
    if name is not None:
        return name
    if frame is not None and code.co_argcount > 0 and code.co_varnames[0] in ("self", "cls"):
        first = frame.f_locals.get(code.co_varnames[0])
        owner = first if isinstance(first, type) else type(first)
        for klass in getattr(owner, "__mro__", ()):
            member = klass.__dict__.get(code.co_name)
            member = getattr(member, "__func__", member)
            if getattr(member, "__code__", None) is code:
                return klass.__qualname__ + "." + code.co_name
    return code.co_name


def code_lines(code):
    """Source lines holding instructions of a code object itself (not of the code nested in it)."""
    if hasattr(code, "co_lines"):
        return {line for _, _, line in code.co_lines() if line is not None}
    return {line for _, line in __import__("dis").findlinestarts(code)}


def last_line(code):
    """Last source line of a code object (its body's extent, used to cut arcs per function)."""
    return max(code_lines(code), default=code.co_firstlineno)
