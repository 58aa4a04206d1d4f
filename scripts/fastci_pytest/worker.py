"""Recording in processes that a test starts (multiprocessing spawn/fork/forkserver, subprocesses).

The pytest process puts a `sitecustomize.py` folder on PYTHONPATH and passes its settings in
FASTCI_WORKER_CONFIG; the test that is running now is in a small file that the pytest process rewrites
at each test boundary (an environment variable would go stale in a forkserver started by an earlier
test). A worker reads that file when it starts, after each fork, when the pytest process signals a
boundary (boundary.py) and every POLL_SECONDS, attributes what it executes to that test id, and writes
its own JSONL file; the ingester merges files by test id.
"""

import atexit
import contextlib
import json
import os
import signal
import sys
import threading
import time

from .boundary import SWITCH_SIGNAL, announce, read_current_test, withdraw
from .recorder import Recorder

ENV_CONFIG = "FASTCI_WORKER_CONFIG"
# the poll is the fallback for workers the boundary signal cannot reach (another thread runs the test
# while the main thread blocks in C); FASTCI_POLL_SECONDS lets a test show the signal alone suffices
POLL_SECONDS = float(os.environ.get("FASTCI_POLL_SECONDS", "0.2"))
SNAPSHOT_SECONDS = float(os.environ.get("FASTCI_FLUSH_SECONDS", "10"))

_state = {"session": None, "main": None, "follow_forks": True}


class WorkerSession:
    """Owns the recorder of a worker process: switches tests, snapshots periodically, writes at exit."""

    def __init__(self, settings, recorder):
        self.settings = settings
        self.recorder = recorder
        self.test_id = None
        self.lock = threading.RLock()
        self.stopped = threading.Event()
        self.closed = False
        self.written = False
        self.exit_after_close = False
        self.signalled = False
        self.holder = None
        self.boundary_pending = False
        self.last_snapshot = time.monotonic()

    def start(self):
        self.signalled = self._listen_for_boundaries()
        self.switch(read_current_test(self.settings))
        thread = threading.Thread(target=self._poll, name="fastci-evidence", daemon=True)
        thread.start()
        self._register_exit()

    def _listen_for_boundaries(self):
        """Install the boundary handler (main thread only, and never over the program's own handler)."""
        if SWITCH_SIGNAL is None or threading.current_thread() is not threading.main_thread():
            return False
        try:
            current = signal.getsignal(SWITCH_SIGNAL)
            inherited = isinstance(getattr(current, "__self__", None), WorkerSession)  # a forked worker's
            if current not in (signal.SIG_DFL, signal.SIG_IGN, None) and not inherited:
                return False
            signal.signal(SWITCH_SIGNAL, self._on_boundary)
            signal.siginterrupt(SWITCH_SIGNAL, False)  # restart the main thread's interrupted reads
            return announce(self.settings)
        except (OSError, ValueError) as error:
            sys.stderr.write("fastci_pytest: worker polls for test boundaries: %r\n" % (error,))
            return False

    def _on_boundary(self, signum, frame):
        # Python runs handlers in the main thread between any two bytecodes, so this may interrupt the
        # main thread's own switch or close: then that section switches again when it ends
        if self.holder == threading.get_ident():
            self.boundary_pending = True
        elif not self.closed:
            self.switch(read_current_test(self.settings))

    @contextlib.contextmanager
    def _exclusive(self):
        """The lock, marked as held by this thread for the boundary handler."""
        with self.lock:
            outer, self.holder = self.holder, threading.get_ident()
            try:
                yield
            finally:
                self.holder = outer
        if outer is not None:
            return
        if self.exit_after_close and not self.closed:
            self.close()
        elif self.boundary_pending:
            self.boundary_pending = False
            self._on_boundary(SWITCH_SIGNAL, None)

    def switch(self, test_id):
        with self._exclusive():
            if self.closed or (test_id or None) == self.test_id:
                return
            self._end_current()
            self.test_id = test_id or None
            if self.test_id:
                self.recorder.begin_test(self.test_id)

    def _end_current(self):
        if self.test_id:
            self.recorder.write_test_data(self.recorder.end_test())
            self.recorder.flush()

    def snapshot(self):
        """Write what the current test recorded so far (readers union repeated records)."""
        with self._exclusive():
            if self.test_id:
                self._end_current()
                self.recorder.begin_test(self.test_id)
            self.last_snapshot = time.monotonic()

    def _poll(self):
        while not self.stopped.wait(POLL_SECONDS):
            try:
                current = read_current_test(self.settings)
                if (current or None) != self.test_id:
                    self.switch(current)
                elif time.monotonic() - self.last_snapshot > SNAPSHOT_SECONDS:
                    self.snapshot()
            except Exception as error:  # never take the worker down
                sys.stderr.write("fastci_pytest: worker recording error: %r\n" % (error,))
                return

    def close(self):
        with self._exclusive():
            if self.closed:
                return
            self.closed = True
            self.stopped.set()
            if self.signalled:
                withdraw(self.settings)
            try:
                self._end_current()
                self.test_id = None
                self.recorder.stop()
                self.recorder.close()
            except Exception as error:
                sys.stderr.write("fastci_pytest: could not write worker evidence: %r\n" % (error,))
            self.written = True
        if self.exit_after_close:
            self._terminate()

    def _register_exit(self):
        atexit.register(self.close)
        try:
            import multiprocessing.util as mp_util
        except ImportError:
            return
        # multiprocessing children end with os._exit after running finalizers, not atexit handlers;
        # Process._bootstrap clears inherited finalizers, so register again from its after-fork hook.
        mp_util.Finalize(None, self.close, exitpriority=100)
        mp_util.register_after_fork(self, WorkerSession._register_finalizer)
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, self._on_sigterm)

    def _register_finalizer(self):
        import multiprocessing.util as mp_util
        mp_util.Finalize(None, self.close, exitpriority=100)

    def _on_sigterm(self, signum, frame):
        # a pool's terminate() often lands while its worker is closing at its normal exit, or inside a
        # switch: let that finish writing, then close and end as SIGTERM would have
        if self.holder == threading.get_ident() or (self.closed and not self.written):
            self.exit_after_close = True
            return
        self.close()
        self._terminate()

    @staticmethod
    def _terminate():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)


def _before_fork():
    for owner in (_state["session"], _state["main"]):
        if owner is not None:
            recorder = owner.recorder if isinstance(owner, WorkerSession) else owner
            recorder.flush()


def _after_fork_in_child():
    session, main = _state["session"], _state["main"]
    if main is not None and not _state["follow_forks"]:
        _state["main"] = None
        main.stop()  # recording in workers is off: a forked child must not pay for the parent's hooks
        return
    if session is not None:
        recorder, settings = session.recorder, session.settings
    elif main is not None:
        recorder, settings = main, main.settings
    else:
        return
    _state["session"] = _state["main"] = None
    try:
        recorder.become_forked_worker()
        new_session = WorkerSession(settings, recorder)
        _state["session"] = new_session
        new_session.start()
    except Exception as error:
        sys.stderr.write("fastci_pytest: worker recording not started after fork: %r\n" % (error,))


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)


def set_main_recorder(recorder, follow_forks=True):
    """The pytest process's recorder: a fork of this process turns it into a worker recorder (or stops it)."""
    _state["main"] = recorder
    _state["follow_forks"] = follow_forks


def active_session():
    return _state["session"]


def discard_session():
    """Stop a worker session that sitecustomize started in what turned out to be a pytest process (xdist)."""
    session = _state["session"]
    _state["session"] = None
    if session is not None:
        session.closed = True
        session.stopped.set()
        if session.signalled:
            withdraw(session.settings)
            signal.signal(SWITCH_SIGNAL, signal.SIG_DFL)
        session.recorder.discard()


def start_from_environment():
    """Entry point of the sitecustomize bootstrap."""
    text = os.environ.get(ENV_CONFIG)
    if not text or _state["session"] is not None:
        return None
    settings = json.loads(text)
    recorder = Recorder(settings, "worker")
    recorder.start()
    session = WorkerSession(settings, recorder)
    _state["session"] = session
    session.start()
    return session
