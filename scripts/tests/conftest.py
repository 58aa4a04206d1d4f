import os
import sys

from plugin_under_test import INSTALLED, SCRIPTS

# The checkout's plugin unless the suite runs against a pip-installed copy (plugin_under_test.py).
if not INSTALLED:
    _loaded = sys.modules.get("fastci_pytest")
    if _loaded is not None and os.path.dirname(os.path.dirname(os.path.abspath(_loaded.__file__))) != SCRIPTS:
        raise RuntimeError("pytest loaded fastci_pytest from %s through its pytest11 entry point before these tests "
                           "could put the checkout's first: run them with PYTHONPATH=%s, or set "
                           "FASTCI_PYTEST_INSTALLED=1 to test that installed copy" % (_loaded.__file__, SCRIPTS))
    if SCRIPTS not in sys.path:
        sys.path.insert(0, SCRIPTS)
