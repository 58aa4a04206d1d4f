"""Evidence JSONL output of one process: a temporary file, flushed as it grows, renamed when closed."""

import datetime
import json
import os
import platform
import secrets
import socket
import sys
import threading

from ._version import VERSION

SCHEMA = 1
COLLECTOR = "fastci_pytest " + VERSION


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_record(commit, role, backend_name, extra_process=None, session=None, sampling=None):
    """The `run` record that opens every file; files of one pytest session share its `session` id.
    `sampling`: the per-test limits of context recording, so a planner can tell a truncated context set."""
    environment = {"python": platform.python_version(), "implementation": platform.python_implementation(),
                   "platform": sys.platform, "backend": backend_name}
    if sampling:
        environment["sampling"] = dict(sampling)
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, "__version__", None):
        environment["torch"] = str(torch.__version__)
    process = {"role": role, "pid": os.getpid(), "parent_pid": os.getppid()}
    process.update(extra_process or {})
    record = {"type": "run", "schema": SCHEMA, "commit": commit or "", "started_at": utc_now(),
              "runner": socket.gethostname(), "environment": environment, "collector": COLLECTOR,
              "process": process}
    if session:
        record["session"] = session
    return record


class Writer:
    """Appends records to `.fastci-<pid>-<random>.jsonl.tmp`; close() renames it to `fastci-<pid>-<random>.jsonl`.

    The file is created on the first record, so a process that records nothing leaves nothing behind.
    """

    def __init__(self, directory, header):
        name = "fastci-%d-%s.jsonl" % (os.getpid(), secrets.token_hex(4))
        self.final_path = os.path.join(directory, name)
        self.temp_path = os.path.join(directory, "." + name + ".tmp")
        self.header = header
        self.file = None
        self.records = 0
        self.lock = threading.Lock()

    def write(self, records):
        if not records:
            return
        with self.lock:
            if self.file is None:
                os.makedirs(os.path.dirname(self.final_path), exist_ok=True)
                self.file = open(self.temp_path, "w", encoding="utf-8")
                self._write_one(self.header)
            for record in records:
                self._write_one(record)

    def _write_one(self, record):
        self.file.write(json.dumps(record, separators=(",", ":"), ensure_ascii=False))
        self.file.write("\n")
        self.records += 1

    def flush(self):
        with self.lock:
            if self.file is not None:
                self.file.flush()

    def close(self):
        """Flush, close and publish the file under its final name (idempotent)."""
        with self.lock:
            if self.file is None:
                return None
            self.file.flush()
            self.file.close()
            self.file = None
            os.replace(self.temp_path, self.final_path)
            return self.final_path

    def abandon(self):
        """In a forked child: forget the parent's file without touching it (its buffer was flushed before fork)."""
        self.file = None
