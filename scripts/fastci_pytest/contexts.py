"""Per-test accumulation of executed functions, their execution contexts, lines and arcs."""

from . import abstraction, scope

CALLER_SEARCH_LIMIT = 64  # frames walked up to find the k nearest repository callers
_CO_NEWLOCALS = 0x02  # set for functions, not for module and class bodies
_COMPREHENSIONS = frozenset(("<listcomp>", "<genexpr>", "<setcomp>", "<dictcomp>"))


def is_function(code):
    """Whether a code object gets contexts: functions and lambdas, not modules, class bodies or comprehensions."""
    return bool(code.co_flags & _CO_NEWLOCALS) and code.co_name not in _COMPREHENSIONS


class CodeInfo:
    """What is known of one repository code object."""

    __slots__ = ("code", "file", "name", "first", "last", "argument_names", "is_config_init", "_own_lines")

    def __init__(self, code, file):
        self.code = code
        self.file = file
        self.name = None  # qualified name, resolved on first sampled call (needs a frame before 3.11)
        self.first = code.co_firstlineno
        self.last = scope.last_line(code)
        self.argument_names = abstraction.argument_names(code)
        self.is_config_init = False
        self._own_lines = None

    def own_arcs(self, arcs):
        """The arcs of `arcs` taken by this code object itself, the same whichever backend saw them.

        coverage.py reports the arcs of nested code (a generator expression's entry, loop and exit on its
        line) among the function's lines; sys.monitoring, traced on the function's own code object, does
        not. And a jump back onto the same line (a comprehension's loop, inlined since Python 3.12) is an
        arc for sys.settrace, which coverage.py uses, but no LINE event for sys.monitoring. Kept: arcs
        between two different lines of the function's own code, and its entry and exit (-first).
        """
        if self._own_lines is None:
            self._own_lines = scope.code_lines(self.code) | {-self.first}
        own = self._own_lines
        return tuple(sorted(arc for arc in arcs if arc[0] != arc[1] and arc[0] in own and arc[1] in own))

    def resolve_name(self, frame):
        if self.name is None:
            qualified = scope.qualified_name(self.code, frame)
            self.name = "%s::%s" % (self.file, qualified)
            lowered = qualified.lower()
            self.is_config_init = self.code.co_name == "__init__" and ("config" in lowered or "args" in lowered)
        return self.name


def infos_by_name(infos):
    """The named CodeInfos of a backend's code -> info table, by qualified name."""
    return {info.name: info for info in list(infos.values()) if info is not None and info.name is not None}


class TestData:
    """Everything one process recorded for one test."""

    def __init__(self, test_id):
        self.test_id = test_id
        self.contexts = {}   # (function, callers, arguments, arcs) -> count
        self.lines = {}      # file -> set of lines
        self.arcs = {}       # file -> set of (from, to)
        self.knobs = {}
        self.samples = {}    # code -> number of calls whose context was recorded
        self.distinct = {}   # code -> number of distinct contexts

    def attach_arcs(self, arcs_of):
        """Give every context of a function the arcs `arcs_of(function)` the test took in its own code.

        One set per function and test, not per call: coverage.py, the backend below Python 3.12, has no
        per-call arcs, and the two backends must give the same key for the same execution."""
        contexts = {}
        for (function, callers, arguments, _), count in self.contexts.items():
            key = (function, callers, arguments, arcs_of(function))
            contexts[key] = contexts.get(key, 0) + count
        self.contexts = contexts

    def add_context(self, info, callers, arguments, arcs):
        key = (info.name, callers, arguments, arcs)
        count = self.contexts.get(key)
        if count is None:
            self.distinct[info.code] = self.distinct.get(info.code, 0) + 1
            self.contexts[key] = 1
        else:
            self.contexts[key] = count + 1

    def add_knobs(self, info, frame):
        values = frame.f_locals
        for name in info.argument_names[1:]:
            value = values.get(name)
            if isinstance(value, (bool, int, float, str)) and (not isinstance(value, str) or len(value) <= 64):
                self.knobs.setdefault(name, abstraction.knob_text(value))

    def is_empty(self):
        return not self.contexts and not self.lines


def callers_of(frame, depth, info_of):
    """Names of the `depth` nearest repository frames above `frame` (external frames are skipped)."""
    names = []
    current = frame.f_back
    walked = 0
    while current is not None and len(names) < depth and walked < CALLER_SEARCH_LIMIT:
        info = info_of(current.f_code)
        if info is not None:
            names.append(info.resolve_name(current))
        current = current.f_back
        walked += 1
    return tuple(names)


def merged_ranges(lines):
    """Sorted, merged [first, last] ranges of a set of line numbers."""
    ranges = []
    for line in sorted(lines):
        if ranges and line == ranges[-1][1] + 1:
            ranges[-1][1] = line
        else:
            ranges.append([line, line])
    return ranges


def records(test, infos_by_name=None, arcs_complete=True):
    """JSONL records (dicts) of one test: one `coverage` per file, one `context` per distinct context."""
    out = []
    for file in sorted(set(test.lines) | set(test.arcs)):
        record = {"type": "coverage", "test": test.test_id, "file": file,
                  "lines": merged_ranges(test.lines.get(file, ())),
                  "arcs": sorted([a, b] for a, b in test.arcs.get(file, ()))}
        if not arcs_complete:
            record["arcs_complete"] = False
        out.append(record)
    for (function, callers, arguments, arcs), count in sorted(test.contexts.items(), key=lambda i: (i[0][0], i[0][1], i[0][2])):
        out.append({"type": "context", "test": test.test_id, "function": function, "callers": list(callers),
                    "arguments": arguments, "arcs": [list(a) for a in arcs], "count": count})
    return out
