"""Recording backend for Python 3.9-3.11: coverage.py's C tracer plus a profile hook.

coverage.py measures lines and arcs with its C tracer (sys.settrace) and one dynamic context per test
(Coverage.switch_context). A sys.setprofile function, independent of the trace function, sees every
call and samples the first calls of each repository function per test (callers, abstract arguments).
coverage.py records arcs per test and file, not per call, so the arcs of a context are those the test
took inside that function over all its calls.
"""

import re
import sys
import threading

from . import abstraction
from .contexts import CodeInfo, TestData, callers_of, infos_by_name, is_function

_MISSING = object()
OUTSIDE_TESTS = "fastci:outside-tests"


class TracerBackend:
    """Per-test lines/arcs (coverage.py) and sampled contexts (sys.setprofile)."""

    arcs_complete = True  # False when coverage.py is missing: then lines are function entries only

    def __init__(self, scope, stack_depth, max_contexts, max_calls):
        self.scope = scope
        self.stack_depth = stack_depth
        self.max_contexts = max_contexts
        self.max_calls = max_calls
        self.infos = {}
        self.test = None
        self.coverage = None
        self.name = "sys.setprofile"
        self._lock = threading.Lock()

    def _new_coverage(self):
        try:
            import coverage
        except Exception:  # absent, or a coverage.py built for another Python
            return None
        self.name = "coverage.py %s + sys.setprofile" % coverage.__version__
        omit = ["*/site-packages/*", "*/dist-packages/*", __file__.rsplit("/", 1)[0] + "/*"]
        cov = coverage.Coverage(data_file=None, branch=True, config_file=False,
                                include=[s + "*" for s in self.scope.sources], omit=omit)
        cov._warn_no_data = False
        cov._warn_unimported_source = False
        return cov

    def start(self):
        self.coverage = self._new_coverage()
        if self.coverage is not None:
            self.coverage.start()
            self.coverage.switch_context(OUTSIDE_TESTS)
        threading.setprofile(self._profile)
        sys.setprofile(self._profile)

    def stop(self):
        sys.setprofile(None)
        threading.setprofile(None)
        if self.coverage is not None:
            try:
                self.coverage.stop()
            except Exception:
                pass
            self.coverage = None

    def reset_after_fork(self):
        """In a forked child: the parent's coverage data must not be reported again; start afresh."""
        self.test = None
        self._lock = threading.Lock()
        if self.coverage is not None:
            try:
                self.coverage._auto_save = False
                self.coverage.stop()
            except Exception:
                pass
        self.start()

    def begin_test(self, test_id):
        with self._lock:
            self.test = TestData(test_id)
            if self.coverage is not None:
                self.coverage.switch_context(test_id)

    def end_test(self):
        with self._lock:
            test, self.test = self.test, None
            if test is None:
                return None
            if self.coverage is not None:
                self.coverage.switch_context(OUTSIDE_TESTS)
                self._collect(test)
            else:
                self._entry_lines(test)
            return test

    def _entry_lines(self, test):
        """Without coverage.py: the first line of each sampled function, so the function still counts as run."""
        self.arcs_complete = False
        for code in test.samples:
            info = self.infos.get(code)
            if info is not None:
                test.lines.setdefault(info.file, set()).add(info.first)

    def _collect(self, test):
        data = self.coverage.get_data()
        data.set_query_contexts(["^" + re.escape(test.test_id) + "$"])
        for measured in data.measured_files():
            file = self.scope.relative_file(measured)
            if file is None:
                continue
            arcs = data.arcs(measured)
            if arcs:
                test.arcs[file] = set(arcs)
                test.lines[file] = {line for arc in arcs for line in arc if line > 0}
        data.set_query_contexts(None)
        self._attach_arcs(test)

    def _attach_arcs(self, test):
        """Give each context the arcs its test took in the function's own code (coverage.py: the test's)."""
        # own_arcs keeps the arcs between the function's own lines: the file's arcs need no cut by span.
        by_name = infos_by_name(self.infos)
        arcs = {}

        def arcs_of(function):
            if function not in arcs:
                info = by_name[function]
                arcs[function] = info.own_arcs(test.arcs.get(info.file, ()))
            return arcs[function]
        test.attach_arcs(arcs_of)

    def _profile(self, frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        info = self.infos.get(code, _MISSING)
        if info is _MISSING:
            file = self.scope.relative_file(code.co_filename)
            info = CodeInfo(code, file) if file is not None and is_function(code) else None
            self.infos[code] = info
        if info is None:
            return
        test = self.test
        if test is None:
            return
        calls = test.samples.get(code, 0)
        if calls >= self.max_calls or test.distinct.get(code, 0) >= self.max_contexts:
            return
        test.samples[code] = calls + 1
        info.resolve_name(frame)
        if info.is_config_init:
            test.add_knobs(info, frame)
        test.add_context(info, callers_of(frame, self.stack_depth, self._info_of),
                         abstraction.abstract_arguments(frame, info.argument_names), ())

    def _info_of(self, code):
        info = self.infos.get(code, _MISSING)
        if info is _MISSING:
            file = self.scope.relative_file(code.co_filename)
            info = CodeInfo(code, file) if file is not None and is_function(code) else None
            self.infos[code] = info
        return info
