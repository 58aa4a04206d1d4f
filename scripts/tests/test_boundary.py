"""Boundary signals: only a process that announced itself, under its own start time, is signalled."""

import os
import subprocess
import sys
import time

from fastci_pytest import boundary

LISTENER = r'''
import signal, sys, time
def handler(signum, frame):
    with open(sys.argv[1], "a") as handle:
        handle.write("signalled\n")
signal.signal(signal.SIGURG, handler)
print("ready", flush=True)
time.sleep(30)
'''


def listener(tmp_path, name):
    marker = tmp_path / name
    process = subprocess.Popen([sys.executable, "-c", LISTENER, str(marker)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    return process, marker


def settings_in(tmp_path):
    folder = tmp_path / "workers"
    folder.mkdir()
    return {"current_test_file": str(tmp_path / "current-test"), "workers_directory": str(folder)}, folder


def wait_for(marker):
    for _ in range(100):
        if marker.exists():
            return marker.read_text()
        time.sleep(0.02)
    return ""


def test_an_announced_worker_is_signalled_at_each_boundary_and_reads_the_new_test(tmp_path):
    settings, folder = settings_in(tmp_path)
    process, marker = listener(tmp_path, "worker")
    try:
        (folder / str(process.pid)).write_text(boundary.start_time(process.pid))
        boundary.write_current_test(settings, "tests/test_x.py::test_one")
        assert wait_for(marker) == "signalled\n"
        assert boundary.read_current_test(settings) == "tests/test_x.py::test_one"
    finally:
        process.kill()
        process.wait()


def test_a_reused_pid_or_a_dead_worker_is_not_signalled_and_its_announcement_goes(tmp_path):
    settings, folder = settings_in(tmp_path)
    stranger, marker = listener(tmp_path, "stranger")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    try:
        # the stranger holds a pid a worker once announced under another start time
        (folder / str(stranger.pid)).write_text(str(int(boundary.start_time(stranger.pid)) - 1))
        (folder / str(dead.pid)).write_text("1")
        boundary.write_current_test(settings, "tests/test_x.py::test_two")
        time.sleep(0.3)
        assert not marker.exists()
        assert os.listdir(folder) == []
    finally:
        stranger.kill()
        stranger.wait()


def test_announce_and_withdraw_this_process(tmp_path):
    settings, folder = settings_in(tmp_path)
    assert boundary.announce(settings)
    assert (folder / str(os.getpid())).read_text() == boundary.start_time(os.getpid())
    boundary.withdraw(settings)
    assert os.listdir(folder) == []
    assert not boundary.announce({"current_test_file": settings["current_test_file"]})  # no folder: poll only
