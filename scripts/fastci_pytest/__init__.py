"""fastci's pytest evidence plugin: `python -m pytest -p fastci_pytest --fastci-evidence=DIR`.

Writes, per test, the repository functions it executed (lines and arcs per file), the execution contexts
of those functions (callers, abstract arguments, arcs), outcome, duration, declared GPUs and workload
knobs, in fastci's evidence JSONL (docs/formats/evidence-jsonl.md). See docs/plugin.md.
"""

__version__ = "0.1"

try:
    import pytest as _pytest  # noqa: F401  (worker processes may run without pytest)
except ImportError:  # pragma: no cover
    pass
else:
    from .plugin import pytest_addoption, pytest_configure  # noqa: F401
