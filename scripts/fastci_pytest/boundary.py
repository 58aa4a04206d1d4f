"""Test boundaries, published by the pytest process and seen by its workers when they happen.

The pytest process writes the running test id to a small file at each boundary. A worker that only
polled that file would attribute a short test's work to the test before it whenever both fall inside
one poll interval: a reused process pool (DeepSpeed's `reuse_dist_env`) runs a fast test's task well
within 0.2 s. So each worker also announces itself in the session's workers folder, and the pytest
process signals every announced worker's main thread right after rewriting the file; the worker's
handler switches tests before it runs the next task it receives.

SIGURG is the signal because its default action is to ignore it: a process that stopped being a worker
(it exec'd another program under the same pid and start time) is not hurt by a late signal. The start
time read from /proc guards against a pid reused by an unrelated process. Without /proc or signals
(other systems) workers only poll.
"""

import os
import signal

SWITCH_SIGNAL = getattr(signal, "SIGURG", None)
ENV_CURRENT_TEST = "FASTCI_CURRENT_TEST"


def read_current_test(settings):
    """The test the pytest process is running now ("" between tests)."""
    try:
        with open(settings["current_test_file"], encoding="utf-8") as handle:
            return handle.read().strip()
    except (OSError, KeyError):
        return os.environ.get(ENV_CURRENT_TEST, "")


def write_current_test(settings, test_id):
    """Atomically publish the running test id, then tell the announced workers (pytest process)."""
    path = settings["current_test_file"]
    temp = "%s.%d" % (path, os.getpid())
    with open(temp, "w", encoding="utf-8") as handle:
        handle.write(test_id)
    os.replace(temp, path)
    os.environ[ENV_CURRENT_TEST] = test_id
    notify_workers(settings)


def start_time(pid):
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22), or None."""
    try:
        with open("/proc/%d/stat" % pid, encoding="ascii", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: count fields after its last ')'
    fields = text[text.rfind(")") + 2:].split()
    return fields[19] if len(fields) > 19 else None


def _announcement(settings, pid):
    folder = settings.get("workers_directory")
    return os.path.join(folder, str(pid)) if folder else None


def announce(settings):
    """Register this process for boundary signals; False where it cannot be signalled safely."""
    path = _announcement(settings, os.getpid())
    started = start_time(os.getpid())
    if path is None or started is None or SWITCH_SIGNAL is None:
        return False
    temp = path + ".tmp"
    with open(temp, "w", encoding="ascii") as handle:
        handle.write(started)
    os.replace(temp, path)
    return True


def withdraw(settings):
    """Unregister this process (at close, or when it turned out to be a pytest process itself)."""
    path = _announcement(settings, os.getpid())
    if path is not None:
        _remove(path)


def _signal_main_thread():
    """tgkill where the C library has it: only the main thread runs Python handlers, and only its
    blocking calls should see EINTR, not a communication library's threads."""
    try:
        import ctypes
        tgkill = ctypes.CDLL(None, use_errno=True).tgkill
    except (ImportError, OSError, AttributeError):
        return lambda pid: os.kill(pid, SWITCH_SIGNAL)

    def send(pid):
        if tgkill(pid, pid, SWITCH_SIGNAL) != 0:
            raise ProcessLookupError(pid)
    return send


_send = None


def notify_workers(settings):
    """Signal each announced worker whose pid still names the process that announced itself."""
    global _send
    folder = settings.get("workers_directory")
    if not folder or SWITCH_SIGNAL is None:
        return
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not name.isdigit():
            continue
        pid = int(name)
        path = os.path.join(folder, name)
        try:
            with open(path, encoding="ascii") as handle:
                announced = handle.read()
            if start_time(pid) != announced:
                raise ProcessLookupError(pid)
            if _send is None:
                _send = _signal_main_thread()
            _send(pid)
        except ProcessLookupError:
            _remove(path)  # the worker is gone (killed before it could withdraw)
        except OSError:
            pass


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass
