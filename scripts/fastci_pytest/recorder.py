"""One process's recorder: a backend (per Python version) plus the JSONL writer."""

import os
import sys

from . import contexts
from .scope import Scope
from .writer import Writer, run_record


def make_backend(settings, scope):
    """sys.monitoring on Python 3.12+, coverage.py + sys.setprofile before (or when asked for)."""
    choice = settings.get("backend") or "auto"
    arguments = (scope, settings["stack_depth"], settings["max_contexts"], settings["max_calls"])
    if choice == "monitoring" or (choice == "auto" and sys.version_info >= (3, 12)):
        from .backend_monitoring import MonitoringBackend
        return MonitoringBackend(*arguments)
    from .backend_tracer import TracerBackend
    return TracerBackend(*arguments)


class Recorder:
    """Records per-test evidence in this process and writes it to its own file in the evidence folder."""

    def __init__(self, settings, role, extra_process=None):
        self.settings = settings
        self.role = role
        self.extra_process = dict(extra_process or {})
        self.scope = Scope(settings["repository_root"], settings["sources"])
        self.backend = make_backend(settings, self.scope)
        self.writer = None

    def start(self):
        self.backend.start()
        self.writer = self._new_writer()

    def _new_writer(self):
        header = run_record(self.settings.get("commit"), self.role, self.backend.name, self.extra_process,
                            self.settings.get("session"),
                            {"max_contexts": self.settings["max_contexts"], "max_calls": self.settings["max_calls"]})
        return Writer(self.settings["directory"], header)

    def begin_test(self, test_id):
        self.backend.begin_test(test_id)

    def end_test(self):
        """Stop attributing to the current test; returns its TestData (or None)."""
        return self.backend.end_test()

    def write_test_data(self, test):
        if test is not None and not test.is_empty():
            self.writer.write(contexts.records(test, arcs_complete=self.backend.arcs_complete))

    def write(self, records):
        self.writer.write(records)

    def flush(self):
        if self.writer is not None:
            self.writer.flush()

    def close(self):
        if self.writer is not None:
            path = self.writer.close()
            return path
        return None

    def stop(self):
        self.backend.stop()

    def discard(self):
        """Stop recording and remove whatever was written (a process that turned out not to be a worker)."""
        self.backend.stop()
        if self.writer is not None and self.writer.file is not None:
            self.writer.file.close()
            self.writer.file = None
            try:
                os.remove(self.writer.temp_path)
            except OSError:
                pass

    def become_forked_worker(self):
        """In a forked child: drop the parent's file and pending data, keep recording for the same test."""
        self.writer.abandon()
        self.role = "worker"
        self.extra_process.pop("xdist_worker", None)
        self.backend.reset_after_fork()
        self.writer = self._new_writer()
