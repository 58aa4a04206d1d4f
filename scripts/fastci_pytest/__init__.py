"""fastci's pytest evidence plugin: `python -m pytest -p fastci_pytest --fastci-evidence=DIR`.

Writes, per test, the repository functions it executed (lines and arcs per file), the execution contexts
of those functions (callers, abstract arguments, arcs), outcome, duration, declared GPUs and workload
knobs, in fastci's evidence JSONL (docs/formats/evidence-jsonl.md). See docs/plugin.md.

The hooks here import the pytest side lazily: worker processes import this package through
sitecustomize and must not pay for importing pytest.
"""

from ._version import VERSION as __version__  # fastci's, from its CMakeLists.txt


def pytest_addoption(parser):
    from .plugin import add_options
    add_options(parser)


def pytest_configure(config):
    from .plugin import configure
    configure(config)


def pytest_collection_modifyitems(session, config, items):
    from .plugin import apply_world_sizes
    apply_world_sizes(config, items)
