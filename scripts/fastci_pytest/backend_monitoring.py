"""Recording backend for Python 3.12+: sys.monitoring (PEP 669).

Two tool ids. The call tool gets PY_START for every code object and returns DISABLE for code outside
the repository and for repository code whose context quota for the current test is spent; the first
calls of a repository function are sampled (callers, abstract arguments) and line-traced through local
LINE/PY_RETURN events on that code object alone, giving the arcs of each sampled call. The line tool
gets LINE events only in repository code and returns DISABLE per location, so each line costs one
callback per test. sys.monitoring.restart_events() at each test boundary re-arms everything.
"""

import sys

from . import abstraction
from .contexts import CodeInfo, TestData, callers_of, infos_by_name, is_function

_MISSING = object()


def _free_tool_ids(count):
    ids = [i for i in (4, 3, 5, 2, 1, 0) if sys.monitoring.get_tool(i) is None]
    if len(ids) < count:
        raise RuntimeError("fastci_pytest needs %d free sys.monitoring tool ids" % count)
    return ids[:count]


class MonitoringBackend:
    """Per-test functions, sampled contexts with their arcs, and executed lines via sys.monitoring."""

    name = "sys.monitoring"
    arcs_complete = False  # arcs come from sampled calls only

    def __init__(self, scope, stack_depth, max_contexts, max_calls):
        self.scope = scope
        self.stack_depth = stack_depth
        self.max_contexts = max_contexts
        self.max_calls = max_calls
        self.infos = {}
        self.active = {}  # code -> stack of [callers, arguments, arcs, last line] of sampled calls
        self.test = None
        self.call_tool = self.line_tool = None

    def start(self):
        monitoring = sys.monitoring
        events = monitoring.events
        self.call_tool, self.line_tool = _free_tool_ids(2)
        monitoring.use_tool_id(self.call_tool, "fastci_pytest calls")
        monitoring.use_tool_id(self.line_tool, "fastci_pytest lines")
        monitoring.register_callback(self.call_tool, events.PY_START, self._on_start)
        monitoring.register_callback(self.call_tool, events.LINE, self._on_sampled_line)
        monitoring.register_callback(self.call_tool, events.PY_RETURN, self._on_return)
        monitoring.register_callback(self.call_tool, events.PY_UNWIND, self._on_unwind)
        monitoring.register_callback(self.line_tool, events.LINE, self._on_line)
        monitoring.set_events(self.call_tool, events.PY_START | events.PY_UNWIND)

    def stop(self):
        if self.call_tool is None:
            return
        monitoring = sys.monitoring
        for tool in (self.call_tool, self.line_tool):
            monitoring.set_events(tool, 0)
            for code, info in self.infos.items():
                if info is not None:
                    monitoring.set_local_events(tool, code, 0)
            monitoring.free_tool_id(tool)
        self.call_tool = self.line_tool = None

    def reset_after_fork(self):
        """In a forked child: drop the parent's pending state; tool ids and callbacks stay valid."""
        self.active.clear()
        self.test = None

    def begin_test(self, test_id):
        self.active.clear()
        self.test = TestData(test_id)
        sys.monitoring.restart_events()

    def end_test(self):
        test, self.test = self.test, None
        if test is None:
            return None
        for code, stack in list(self.active.items()):
            info = self.infos[code]
            while stack:
                self._finish(test, info, stack.pop(), exit_arc=False)
            sys.monitoring.set_local_events(self.call_tool, code, 0)
        self.active.clear()
        self._attach_arcs(test)
        return test

    def _attach_arcs(self, test):
        """One set of arcs per function and test, the union over its sampled calls, as the tracer has it."""
        by_name = infos_by_name(self.infos)
        arcs = {}
        for (function, _, _, call_arcs) in test.contexts:
            arcs.setdefault(function, set()).update(call_arcs)
        test.attach_arcs(lambda function: by_name[function].own_arcs(arcs[function]))

    def _classify(self, code):
        file = self.scope.relative_file(code.co_filename)
        info = CodeInfo(code, file) if file is not None else None
        self.infos[code] = info
        if info is not None:
            sys.monitoring.set_local_events(self.line_tool, code, sys.monitoring.events.LINE)
        return info

    def _on_start(self, code, offset):
        info = self.infos.get(code, _MISSING)
        if info is _MISSING:
            info = self._classify(code)
        test = self.test
        if info is None or test is None or not is_function(code):
            return sys.monitoring.DISABLE
        calls = test.samples.get(code, 0)
        if calls >= self.max_calls or test.distinct.get(code, 0) >= self.max_contexts:
            return sys.monitoring.DISABLE
        test.samples[code] = calls + 1
        frame = sys._getframe(1)
        info.resolve_name(frame)
        if info.is_config_init:
            test.add_knobs(info, frame)
        sample = [callers_of(frame, self.stack_depth, self._info_of),
                  abstraction.abstract_arguments(frame, info.argument_names), set(), -info.first]
        stack = self.active.get(code)
        if stack is None:
            self.active[code] = [sample]
            events = sys.monitoring.events
            sys.monitoring.set_local_events(self.call_tool, code, events.LINE | events.PY_RETURN)
        else:
            stack.append(sample)
        return None

    def _info_of(self, code):
        info = self.infos.get(code, _MISSING)
        if info is _MISSING:
            info = self._classify(code)
        return info if info is not None and is_function(code) else None

    def _on_sampled_line(self, code, line):
        stack = self.active.get(code)
        if stack:
            sample = stack[-1]
            sample[2].add((sample[3], line))
            sample[3] = line

    def _on_return(self, code, offset, value):
        self._pop(code)

    def _on_unwind(self, code, offset, exception):
        if code in self.active:
            self._pop(code)

    def _pop(self, code):
        stack = self.active.get(code)
        if not stack:
            return
        test = self.test
        sample = stack.pop()
        if test is not None:
            self._finish(test, self.infos[code], sample, exit_arc=True)
        if not stack:
            del self.active[code]
            sys.monitoring.set_local_events(self.call_tool, code, 0)

    @staticmethod
    def _finish(test, info, sample, exit_arc):
        callers, arguments, arcs, last = sample
        if exit_arc:
            arcs.add((last, -info.first))
        test.add_context(info, callers, arguments, tuple(sorted(arcs)))
        file_arcs = test.arcs.get(info.file)
        if file_arcs is None:
            test.arcs[info.file] = set(arcs)
        else:
            file_arcs.update(arcs)

    def _on_line(self, code, line):
        test = self.test
        if test is not None and line > 0:  # an empty module's code reports line 0: no source line ran
            info = self.infos.get(code)
            if info is not None:
                lines = test.lines.get(info.file)
                if lines is None:
                    test.lines[info.file] = {line}
                else:
                    lines.add(line)
        return sys.monitoring.DISABLE
