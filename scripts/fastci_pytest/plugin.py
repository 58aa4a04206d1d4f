"""pytest hooks: per-test evidence (docs/formats/evidence-jsonl.md) written to --fastci-evidence=DIR."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

import pytest

from . import abstraction, boundary, contexts, worker
from .recorder import Recorder

_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MESSAGE_LIMIT = 500

_SITECUSTOMIZE = '''\
# Written by fastci_pytest: starts evidence recording in processes started by a test, then chains
# to the next sitecustomize on the path.
import os as _os
import sys as _sys
if _os.environ.get("FASTCI_WORKER_CONFIG"):
    try:
        import fastci_pytest.worker as _fastci_worker
        _fastci_worker.start_from_environment()
    except Exception as _error:
        _sys.stderr.write("fastci_pytest: worker recording not started: %r\\n" % (_error,))
def _fastci_chain():
    import importlib.machinery
    import importlib.util
    here = _os.path.dirname(_os.path.abspath(__file__))
    rest = [p for p in _sys.path if _os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
_fastci_chain()
'''


def add_options(parser):
    """The plugin's command-line options."""
    group = parser.getgroup("fastci", "fastci per-test evidence")
    group.addoption("--fastci-evidence", metavar="DIR", default=None,
                    help="write fastci evidence JSONL files (one per process) into DIR")
    group.addoption("--fastci-source", metavar="PATH", action="append", default=[],
                    help="repository code to record (repeatable; default: the git work tree of rootdir, else rootdir)")
    group.addoption("--fastci-stack-depth", type=int, default=3, metavar="K",
                    help="repository caller frames kept per context (default 3)")
    group.addoption("--fastci-max-contexts", type=int, default=8, metavar="N",
                    help="distinct contexts recorded per function per test (default 8)")
    group.addoption("--fastci-max-calls", type=int, default=32, metavar="N",
                    help="calls examined per function per test (default 32)")
    group.addoption("--fastci-backend", choices=("auto", "monitoring", "tracer"), default="auto",
                    help="auto: sys.monitoring on Python 3.12+, coverage.py + sys.setprofile before")
    group.addoption("--fastci-no-workers", action="store_true", default=False,
                    help="do not record in processes started by tests")
    group.addoption("--fastci-world-size", metavar="TEST=N", action="append", default=[],
                    help="run TEST (a node id, or a prefix ending at :: or [) with N processes: adds "
                         "@pytest.mark.world_size(N), which DeepSpeed's DistributedTest honours, to the test "
                         "function (all its parametrizations; repeatable; the form of fastci's shrunk-workload "
                         "overrides)")


def _matches(pattern, test_id):
    return test_id == pattern or (test_id.startswith(pattern) and test_id[len(pattern):][:1] in (":", "["))


def apply_world_sizes(config, items):
    """Adds a world_size mark to every test an --fastci-world-size option names."""
    overrides = []
    for text in config.getoption("fastci_world_size"):
        test, _, size = text.rpartition("=")
        if not test or not size.isdigit() or int(size) < 1:
            raise pytest.UsageError("--fastci-world-size expects TEST=N with N >= 1, got %r" % text)
        overrides.append((test, int(size)))
    if not overrides:
        return
    rootdir = str(config.rootpath)
    _, top = git_facts(rootdir)
    prefix = os.path.relpath(rootdir, top).replace(os.sep, "/") + "/" if top else ""
    prefix = "" if prefix in ("./", "") or prefix.startswith("..") else prefix
    for item in items:
        for test, size in overrides:
            if _matches(test, item.nodeid) or _matches(test, prefix + item.nodeid):
                decorator = pytest.mark.world_size(size)
                mark = decorator.mark
                item.add_marker(decorator, append=False)
                # DeepSpeed's DistributedTest reads the function's own pytestmark, not the item's marks,
                # so the override holds for every parametrization of that function.
                function = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
                if function is not None:
                    marks = [m for m in getattr(function, "pytestmark", []) if m.name != "world_size"]
                    function.pytestmark = [mark] + marks


def configure(config):
    """Registers the recorder when --fastci-evidence is given (not in an xdist controller)."""
    directory = config.getoption("fastci_evidence")
    if not directory:
        return
    if getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput"):
        return  # pytest-xdist controller: the workers run the tests and write the files
    config.pluginmanager.register(EvidencePlugin(config, directory), "fastci-evidence")


def git_facts(directory):
    """(commit, work tree top) of the git repository holding `directory`; empty strings when none."""
    try:
        output = subprocess.run(["git", "-C", directory, "rev-parse", "HEAD", "--show-toplevel"],
                                capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        sys.stderr.write("fastci_pytest: no commit for %s: %s\n" % (directory, error))
        return "", ""
    lines = output.stdout.splitlines()
    if output.returncode != 0 or len(lines) != 2:
        sys.stderr.write("fastci_pytest: no commit for %s: %s\n" % (directory, output.stderr.strip()))
        return "", ""
    return lines[0], lines[1]


def declared_gpus(item):
    """GPUs the test declares: a world_size mark, DeepSpeed's world_size class attribute, torchrun's env."""
    mark = item.get_closest_marker("world_size")
    value = mark.args[0] if mark is not None and mark.args else None
    if value is None and getattr(item, "cls", None) is not None:
        value = getattr(item.cls, "world_size", None)
    if isinstance(value, (list, tuple)):
        value = max((v for v in value if isinstance(v, int)), default=None)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    for name in ("LOCAL_WORLD_SIZE", "WORLD_SIZE"):
        text = os.environ.get(name)
        if text and text.isdigit() and os.environ.get("TORCHELASTIC_RUN_ID") is not None:
            return int(text)
    return 0


def outcome_of(reports):
    """Outcome and message from the setup/call/teardown reports of one test."""
    setup, call, teardown = (reports.get(w) for w in ("setup", "call", "teardown"))
    outcome, message = "passed", ""
    if setup is not None and setup.failed:
        outcome, message = "error", _message(setup)
    elif setup is not None and setup.skipped:
        outcome, message = _skip_outcome(setup)
    elif call is not None:
        if call.skipped:
            outcome, message = _skip_outcome(call)
        elif call.failed:
            outcome, message = "failed", _message(call)
        elif hasattr(call, "wasxfail"):
            outcome, message = "xpassed", str(call.wasxfail)
    if teardown is not None and teardown.failed and outcome not in ("failed", "error"):
        outcome, message = "error", _message(teardown)
    return outcome, message[:MESSAGE_LIMIT]


def _skip_outcome(report):
    if hasattr(report, "wasxfail"):
        return "xfailed", str(report.wasxfail)
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return "skipped", str(longrepr[2])
    return "skipped", str(longrepr or "")


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message)
    return str(report.longrepr or "")


class EvidencePlugin:
    """Records each test in this process and publishes the settings that workers need."""

    def __init__(self, config, directory):
        self.config = config
        self.reports = {}
        previous = worker.active_session()
        if previous is not None:  # this pytest process was itself started by a recorded test (xdist worker)
            worker.discard_session()
        rootdir = str(config.rootpath)
        commit, top = git_facts(rootdir)
        commit = os.environ.get("FASTCI_COMMIT") or commit
        repository_root = top or rootdir
        # fastci names tests from the repository root; pytest from its rootdir (DeepSpeed's is tests/)
        prefix = os.path.relpath(rootdir, repository_root).replace(os.sep, "/")
        self.id_prefix = "" if prefix == "." or prefix.startswith("..") else prefix + "/"
        sources = [os.path.abspath(s) for s in config.getoption("fastci_source")] or [repository_root]
        self.bootstrap = tempfile.mkdtemp(prefix="fastci-pytest-")
        self.settings = {
            "directory": os.path.abspath(directory), "repository_root": repository_root, "sources": sources,
            "stack_depth": config.getoption("fastci_stack_depth"),
            "max_contexts": config.getoption("fastci_max_contexts"),
            "max_calls": config.getoption("fastci_max_calls"),
            "backend": config.getoption("fastci_backend"), "commit": commit,
            # the CUDA launch collectors (cuda/, loaded before pytest) read the running test from the
            # file FASTCI_CURRENT_TEST_FILE names: where it is set, that is the file this session rewrites
            "current_test_file": os.environ.get("FASTCI_CURRENT_TEST_FILE") or os.path.join(self.bootstrap, "current-test"),
            # every file of this session (this process, its workers, their forks) carries it, so that
            # `fastci ingest` stores them as one run: a distributed test's evidence is split over them
            "session": uuid.uuid4().hex,
            # workers announce themselves here to be signalled at each test boundary (boundary.py)
            "workers_directory": os.path.join(self.bootstrap, "workers"),
        }
        os.mkdir(self.settings["workers_directory"])
        extra = {}
        if hasattr(config, "workerinput"):
            extra["xdist_worker"] = config.workerinput.get("workerid", "")
        self.recorder = Recorder(self.settings, "pytest", extra)
        self.saved_environment = {}
        boundary.write_current_test(self.settings, "")
        if not config.getoption("fastci_no_workers"):
            self._install_bootstrap()
        self.recorder.start()
        worker.set_main_recorder(self.recorder, follow_forks=not config.getoption("fastci_no_workers"))

    def _install_bootstrap(self):
        with open(os.path.join(self.bootstrap, "sitecustomize.py"), "w", encoding="utf-8") as handle:
            handle.write(_SITECUSTOMIZE)
        path = os.environ.get("PYTHONPATH", "")
        parts = [self.bootstrap, _PACKAGE_PARENT] + ([path] if path else [])
        self._set_environment("PYTHONPATH", os.pathsep.join(parts))
        self._set_environment(worker.ENV_CONFIG, json.dumps(self.settings))

    def _set_environment(self, name, value):
        self.saved_environment.setdefault(name, os.environ.get(name))
        os.environ[name] = value

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        test_id = self.id_prefix + item.nodeid
        self.reports[item.nodeid] = {}
        boundary.write_current_test(self.settings, test_id)
        self.recorder.begin_test(test_id)
        try:
            yield
        finally:
            data = self.recorder.end_test()
            boundary.write_current_test(self.settings, "")
            self._write_test(item, data)

    def pytest_runtest_logreport(self, report):
        if report.nodeid in self.reports:
            self.reports[report.nodeid][report.when] = report

    def _write_test(self, item, data):
        reports = self.reports.pop(item.nodeid, {})
        outcome, message = outcome_of(reports)
        knobs = dict(data.knobs) if data is not None else {}
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            for name, value in callspec.params.items():
                knobs[name] = abstraction.knob_text(value)
        record = {"type": "test", "id": self.id_prefix + item.nodeid, "outcome": outcome,
                  "duration": round(sum(r.duration for r in reports.values()), 6),
                  "gpus": declared_gpus(item), "knobs": knobs, "message": message}
        self.recorder.write([record])
        self.recorder.write_test_data(data)
        self.recorder.flush()

    def pytest_unconfigure(self, config):
        worker.set_main_recorder(None)
        multiprocessing = sys.modules.get("multiprocessing")
        if self.saved_environment and multiprocessing is not None and multiprocessing.active_children():
            # live workers (reused pools) write the last test's data on "no test" (signalled at once,
            # or within one poll) before the pools are torn down at interpreter exit
            boundary.write_current_test(self.settings, "")
            time.sleep(min(2 * worker.POLL_SECONDS, 0.4))
        self.recorder.stop()
        self.recorder.close()
        for name, value in self.saved_environment.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(self.bootstrap, ignore_errors=True)
