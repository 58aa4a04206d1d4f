#!/usr/bin/env python3
"""Record a real test history of DeepSpeed (commits plus mutation faults) for `fastci replay`.

For a range of consecutive first-parent commits of DeepSpeed that touch its code (deepspeed/, csrc/,
op_builder/ by default) this script

1. runs a subset of DeepSpeed's own unit tests once under the fastci pytest plugin at the parent of the
   first commit and ingests that evidence into a SQLite store (`fastci ingest`);
2. runs the subset at every commit (without the plugin) and records each test's outcome, duration and
   declared GPU count (`world_size`);
3. derives mutants from the lines each commit added or changed (Python under deepspeed/, accelerator/,
   op_builder/ and C++ under csrc/ that the JIT-built extensions compile), commits each on top of its
   real commit (branch `mutant/<n>` in the history clone), runs the subset on it and records which tests
   it kills;
4. writes `history.json` (format `fastci-history/1`) next to the clone and the store.

Everything is resumable: commits and mutants already in history.json are skipped, and history.json is
rewritten after every run. Only the Python standard library is used. See record_deepspeed_history.md.
"""

import argparse
import ast
import datetime
import json
import os
import random
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

HISTORY_FORMAT = "fastci-history/1"

# pytest arguments, relative to DeepSpeed's tests/ folder (where its pytest.ini is).
DEFAULT_TESTS = """
unit/ops/adam/test_cpu_adam.py::TestCPUAdam
unit/comm/test_dist.py::TestInit
unit/comm/test_dist.py::TestDistAllReduce
unit/comm/test_dist.py::TestDistInferenceAllReduce
unit/comm/test_dist.py::TestDistInitNoEnv
unit/runtime/test_runtime_utils.py
unit/elasticity
unit/launcher/test_ds_arguments.py
unit/launcher/test_multinode_runner.py
unit/launcher/test_run.py
unit/checkpoint/test_reshape_checkpoint.py
unit/utils/test_groups.py
unit/utils/test_get_optim_files.py
unit/utils/test_partition_balanced.py
unit/accelerator
unit/runtime/test_ds_config_model.py
unit/runtime/zero/test_zero_config.py
unit/runtime/pipe/test_topology.py
# fp16 test_fused_adam_equal: the pool worker dies (general protection fault) on this CPU and the pool
# then waits forever; TestDistributedTopology: slow and covered by the other distributed tests.
-k "not (test_fused_adam_equal and fp16) and not TestDistributedTopology"
"""

DEFAULT_PREBUILD_OPS = "CPUAdamBuilder,FusedAdamBuilder,ShareMemCommBuilder"

# the folders whose changes a real commit's changed_files and executed_changed_* describe (--touch-paths)
DEFAULT_TOUCH_PATHS = "deepspeed,accelerator,op_builder,csrc"

# the folders whose Python changes since the start evidence can change a test's path (--drift-paths)
DEFAULT_DRIFT_PATHS = "deepspeed,accelerator,op_builder,tests"

# A small pytest plugin written next to the outputs: one JSON line per event, so that a run that is cut
# short (a hanging distributed test makes DeepSpeed's harness call pytest.exit) still says what ran.
REPORTER_PLUGIN = r'''
import json, os, time

_out = None
_prefix = os.environ.get("DS_HISTORY_PREFIX", "")
_state = {}


def _write(record):
    global _out
    if _out is None:
        _out = open(os.environ["DS_HISTORY_REPORT"], "a", encoding="utf-8")
    _out.write(json.dumps(record) + "\n")
    _out.flush()


def _gpus(item):
    mark = item.get_closest_marker("world_size")
    if mark is not None and mark.args:
        value = mark.args[0]
    else:
        cls = getattr(item, "cls", None)
        names = [c.__name__ for c in getattr(cls, "__mro__", ())]
        if cls is None or not ("DistributedExec" in names or "DistributedTest" in names):
            return 1
        value = getattr(cls, "world_size", 1)
    if isinstance(value, (list, tuple)):
        value = max(value) if value else 1
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return 1


def pytest_collection_modifyitems(session, config, items):
    # --select-by-id: keep only the listed ids (files are collected whole, so an id that a commit lacks is
    # left out instead of failing the whole run)
    path = os.environ.get("DS_HISTORY_SELECT")
    if not path:
        return
    with open(path, encoding="utf-8") as fh:
        wanted = set(line.rstrip("\n") for line in fh if line.strip())
    keep = [i for i in items if _prefix + i.nodeid in wanted]
    drop = [i for i in items if _prefix + i.nodeid not in wanted]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_collection_finish(session):
    _write({"event": "collected", "tests": [[_prefix + i.nodeid, _gpus(i)] for i in session.items]})


def pytest_runtest_logstart(nodeid, location):
    _state[nodeid] = {"outcome": None, "seconds": 0.0, "message": ""}
    _write({"event": "start", "id": _prefix + nodeid, "time": time.time()})


def pytest_runtest_logreport(report):
    st = _state.setdefault(report.nodeid, {"outcome": None, "seconds": 0.0, "message": ""})
    st["seconds"] += float(getattr(report, "duration", 0.0) or 0.0)
    msg = ""
    if report.failed or report.skipped:
        try:
            if report.skipped and isinstance(report.longrepr, tuple):
                msg = str(report.longrepr[2])
            else:
                crash = getattr(report.longrepr, "reprcrash", None)
                msg = crash.message if crash is not None else str(report.longrepr)
        except Exception:
            msg = ""
    wasxfail = hasattr(report, "wasxfail")
    if report.when == "setup":
        if report.failed:
            st["outcome"], st["message"] = "error", msg
        elif report.skipped:
            st["outcome"], st["message"] = ("xfailed" if wasxfail else "skipped"), msg
    elif report.when == "call":
        if wasxfail:
            st["outcome"] = "xfailed" if report.skipped else "xpassed"
        elif report.failed:
            st["outcome"], st["message"] = "failed", msg
        elif report.skipped:
            st["outcome"], st["message"] = "skipped", msg
        else:
            st["outcome"] = "passed"
    elif report.when == "teardown" and report.failed:
        if st["outcome"] in (None, "passed"):
            st["outcome"], st["message"] = "error", msg


def pytest_runtest_logfinish(nodeid, location):
    st = _state.pop(nodeid, {"outcome": None, "seconds": 0.0, "message": ""})
    _write({"event": "result", "id": _prefix + nodeid, "outcome": st["outcome"] or "error",
            "seconds": round(st["seconds"], 3), "message": (st["message"] or "")[:500]})
'''

PREBUILD_SNIPPET = r'''
import sys, traceback
from deepspeed.accelerator import get_accelerator
failed = []
for name in sys.argv[1].split(","):
    name = name.strip()
    if not name:
        continue
    try:
        cls = get_accelerator().get_op_builder(name)
    except Exception:
        cls = None
    if cls is None or cls.__name__ == "NotImplementedBuilder":
        print("prebuild: %s: not provided by this accelerator" % name)
        continue
    builder = cls()
    try:
        if not builder.is_compatible():
            print("prebuild: %s: not compatible" % name)
            continue
        builder.load()
        print("prebuild: %s: ok" % name)
    except Exception:
        traceback.print_exc()
        print("prebuild: %s: FAILED" % name)
        failed.append(name)
sys.exit(1 if failed else 0)
'''


def log(msg):
    stamp = datetime.datetime.now().strftime("%H:%M:%S")
    print("[%s] %s" % (stamp, msg), file=sys.stderr, flush=True)


def git(repo, *args, check=True, env=None):
    proc = subprocess.run(["git", "-C", repo] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env)
    if check and proc.returncode != 0:
        raise RuntimeError("git %s failed: %s" % (" ".join(args), proc.stderr.strip()))
    return proc.stdout


# ---------------------------------------------------------------------------------------------------
# set-up


def ensure_clone(args):
    repo = os.path.join(args.out, "repo")
    if not os.path.isdir(os.path.join(repo, ".git")):
        log("cloning %s into %s" % (args.source, repo))
        subprocess.run(["git", "clone", "-q", "--no-checkout", args.source, repo], check=True)
        # Some large media under blogs/ and docs/ may be missing from a partial mirror; they are not needed.
        git(repo, "sparse-checkout", "set", "--no-cone", "/*", "!/blogs/", "!/docs/")
    return repo


def resolve(repo, rev):
    return git(repo, "rev-parse", "--verify", rev + "^{commit}").strip()


def select_commits(args, repo):
    last = resolve(repo, args.last)
    paths = args.paths.split(",")
    if args.first:
        first = resolve(repo, args.first)
        out = git(repo, "log", "--first-parent", "--format=%H", first + "^.." + last, "--", *paths).split()
    else:
        out = git(repo, "log", "--first-parent", "--format=%H", "-n", str(args.count), last, "--", *paths).split()
    out.reverse()
    commits = []
    for sha in out:
        subject = git(repo, "log", "-1", "--format=%s", sha).strip()
        base = git(repo, "rev-parse", sha + "^").strip()
        commits.append({"commit": sha, "base": base, "subject": subject})
    return commits


def checkout(repo, rev):
    git(repo, "checkout", "-q", "-f", "--detach", rev)
    git(repo, "clean", "-fdq")


def test_args(args):
    if args.tests_file:
        with open(args.tests_file, encoding="utf-8") as fh:
            text = fh.read()
    else:
        text = DEFAULT_TESTS
    words = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            if "::" in line and not line.startswith(("-", "'", '"')):
                words.append(line)  # a test id, verbatim (parameter ids may hold quotes and spaces)
            else:
                words.extend(shlex.split(line))
    return words


def env_pair(item):
    """--env NAME=VALUE as (name, value); argparse reports the error."""
    name, sep, value = item.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError("wants NAME=VALUE, got %r" % item)
    return name, value


def base_env(args, repo):
    env = dict(os.environ)
    env["LOCAL_SIZE"] = str(args.local_size)
    env["TORCH_EXTENSIONS_DIR"] = args.extensions_dir
    env["DS_UNITTEST_TIMEOUT"] = str(args.test_timeout)
    env["PYTHONPATH"] = os.pathsep.join([p for p in [args.shims, repo] if p])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(env_overrides(args, repo))
    return env


def env_overrides(args, repo=None):
    """--env NAME=VALUE pairs with {repo} filled in; without a checkout, those naming {repo} are left out."""
    out = {}
    for name, value in getattr(args, "env", None) or ():  # callers that build their own args may lack it
        if "{repo}" not in value or repo is not None:
            out[name] = value.replace("{repo}", repo or "")
    return out


MACHINE_PROBE = r"""
import json, torch
vendor = model = ""
with open("/proc/cpuinfo") as fh:
    for line in fh:
        key, _, value = line.partition(":")
        if key.strip() == "vendor_id" and not vendor: vendor = value.strip()
        if key.strip() == "model name" and not model: model = value.strip()
try:
    fp16 = bool(torch.ops.mkldnn._is_mkldnn_fp16_supported())
except Exception:
    fp16 = False
print(json.dumps({"cpu_vendor": vendor, "cpu_model": model, "mkldnn_fp16": fp16,
                  "cpu_capability": torch.backends.cpu.get_cpu_capability()}))
"""

# What of the machine changes DeepSpeed's CPU test outcomes without any code changing: the CPU
# accelerator lists float16 only where oneDNN supports it (Sapphire Rapids and later), and tests skip
# half precision on AMD CPUs. A history mixing machines would show those flips as the commits' doing.
MACHINE_KEYS = ("cpu_vendor", "mkldnn_fp16")


def machine_fingerprint(args):
    """The recording interpreter's view of the machine (MACHINE_PROBE)."""
    # with the recording's --env, so that a pinned ATEN_CPU_CAPABILITY shows as the tests see it
    env = dict(os.environ, **env_overrides(args))
    proc = subprocess.run([args.python, "-c", MACHINE_PROBE], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=300, env=env)
    if proc.returncode != 0:
        raise SystemExit("recorder: cannot probe the machine with %s: %s" % (args.python, proc.stderr.strip()[-400:]))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check_machine(state, machine):
    """Stops the recording where this machine differs from the start evidence's in MACHINE_KEYS."""
    expected = state.get("machine")
    if not expected:
        return
    differs = ["%s: %r here, %r at the start" % (k, machine.get(k), expected[k]) for k in MACHINE_KEYS
               if k in expected and machine.get(k) != expected[k]]
    if differs:
        raise SystemExit("recorder: this machine is not the kind the history was started on (%s); its outcomes "
                         "would change with the hardware, not the code. Resume on a machine of that kind."
                         % "; ".join(differs))


def every_test_reported(events):
    """Whether a report holds a result for every test its run collected."""
    collected = next((e["tests"] for e in events if e["event"] == "collected"), None)
    if collected is None:
        return False
    results = set(e["id"] for e in events if e["event"] == "result")
    return all(t in results for t, _ in collected)


def run_group(cmd, cwd, env, timeout, log_path, report=None, hang_limit=None, exit_grace=60):
    """Runs cmd in its own process group; kills the whole group afterwards (pool workers included).
    With report and hang_limit: also kills it when the test that the report says is running has run for
    more than hang_limit seconds (DeepSpeed's harness itself can hang after its own timeout: it tears the
    pool down with a starmap that has none), or when every collected test has reported and pytest has
    not exited `exit_grace` seconds later (under the fastci plugin, interpreter exit can wait forever on
    a distributed store's thread)."""
    with open(log_path, "a", encoding="utf-8") as out:
        out.write("\n$ %s\n" % " ".join(shlex.quote(c) for c in cmd))
        out.flush()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        timed_out = False
        deadline = time.time() + timeout
        reported_since = None
        try:
            while True:
                try:
                    proc.wait(timeout=2)
                    break
                except subprocess.TimeoutExpired:
                    pass
                if time.time() > deadline:
                    timed_out = True
                    break
                if report and hang_limit:
                    events = read_events(report)
                    if events and events[-1]["event"] == "start" and \
                            time.time() - events[-1]["time"] > hang_limit:
                        out.write("\n[recorder] %s: no result after %d s, killing the run\n" %
                                  (events[-1]["id"], hang_limit))
                        break
                    if reported_since is None and every_test_reported(events):
                        reported_since = time.time()
                    if reported_since is not None and time.time() - reported_since > exit_grace:
                        out.write("\n[recorder] every collected test reported; pytest did not exit within %d s, "
                                  "killing it\n" % exit_grace)
                        break
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
    return proc.returncode, timed_out


def write_version_info(args, repo):
    """--version-info: writes deepspeed/git_version_info_installed.py (git-ignored) into the checkout as
    `pip install .` of the commit would on a CPU-only torch, so that the tests see DeepSpeed's version and
    torch_info (without it the version reads 0.0.0 and torch_info lacks nccl_version)."""
    version_file = os.path.join(repo, "version.txt")
    if not os.path.exists(version_file):
        return
    with open(version_file, encoding="utf-8") as fh:
        version = fh.read().strip()
    short = git(repo, "rev-parse", "--short", "HEAD").strip()
    torch_info = {"version": args.version_info, "bf16_support": False, "cuda_version": "0.0",
                  "nccl_version": "0.0", "hip_version": "0.0"}
    with open(os.path.join(repo, "deepspeed", "git_version_info_installed.py"), "w", encoding="utf-8") as fh:
        fh.write("version=%r\ngit_hash=%r\ngit_branch='HEAD'\n" % (version + "+" + short, short))
        fh.write("from .ops.op_builder.all_ops import ALL_OPS\n")
        fh.write("installed_ops = dict.fromkeys(ALL_OPS.keys(), False)\n")
        fh.write("accelerator_name='cpu'\ntorch_info=%r\n" % (torch_info,))


def prebuild(args, repo, env, log_path):
    if not args.prebuild_ops:
        return True
    cmd = ["nice", "-n", str(args.nice), args.python, "-c", PREBUILD_SNIPPET, args.prebuild_ops]
    rc, timed_out = run_group(cmd, repo, env, args.build_timeout, log_path)
    return rc == 0 and not timed_out


def pytest_cmd(args, extra):
    # pytest's cache stays off unless the caller names a folder for it (pytest-testmon needs the plugin)
    cache = getattr(args, "cache_dir", None)
    cache_args = ["-o", "cache_dir=" + cache] if cache else ["-p", "no:cacheprovider"]
    return ["nice", "-n", str(args.nice), args.python, "-m", "pytest"] + cache_args + ["-p",
            "ds_history_report", "-rA", "-q"] + extra


def read_events(path):
    events = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass
    return events


def run_subset(args, repo, label, plugin_args=None, env_extra=None, check_build=None, only=None):
    """Runs the test subset in repo/tests; returns (results, info). Survives hangs: a test that started
    but never reported is recorded as failed and the remaining tests run in a fresh pytest process.
    `only`: a set of test ids (as recorded, e.g. tests/unit/x.py::t) to run instead of the whole subset."""
    tests_dir = os.path.join(repo, args.tests_subdir)
    rundir = os.path.join(args.out, "runs", label)
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    log_path = os.path.join(rundir, "output.log")
    env = base_env(args, repo)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(args.out, "tools")] + ([args.fastci_scripts]
                                                                             if plugin_args else []) +
                                        [env["PYTHONPATH"]])
    prefix = os.path.relpath(tests_dir, repo).replace(os.sep, "/")
    env["DS_HISTORY_PREFIX"] = "" if prefix == "." else prefix + "/"
    if env_extra:
        env.update(env_extra)
    info = {"prebuild_ok": True, "hangs": [], "pytest_runs": 0}
    if getattr(args, "version_info", None):
        write_version_info(args, repo)
    t0 = time.time()
    info["prebuild_ok"] = prebuild(args, repo, env, log_path)
    t_build = time.time() - t0
    if check_build is not None and (not info["prebuild_ok"] or not check_build(t0)):
        info["not_built"] = info["prebuild_ok"]
        return [], info
    selection = test_args(args)
    if only is not None:
        selection = [w for w in selection if "::" not in w or w.startswith("-") or
                     env["DS_HISTORY_PREFIX"] + w in only]
        if not any("::" in w and not w.startswith("-") for w in selection):
            # none of them is in the subset: pytest without ids would run the whole folder
            info["nothing_to_run"] = True
            return [], info
    wanted = None
    if getattr(args, "select_by_id", False):
        selection, wanted = id_selection(selection, tests_dir, env["DS_HISTORY_PREFIX"], rundir)
        env["DS_HISTORY_SELECT"] = os.path.join(rundir, "selected-ids.txt")
    results = {}
    collected = None
    order = []
    attempt = 0
    t1 = time.time()
    while True:
        attempt += 1
        report = os.path.join(rundir, "report-%d.jsonl" % attempt)
        env["DS_HISTORY_REPORT"] = report
        if collected is None:
            extra = selection
        else:
            remaining = [t for t in order if t not in results]
            if not remaining:
                break
            # explicit node ids (relative to tests/), keeping the original order
            strip = env["DS_HISTORY_PREFIX"]
            extra = [t[len(strip):] if t.startswith(strip) else t for t in remaining]
        remaining_time = args.run_timeout - (time.time() - t1)
        if remaining_time <= 30:
            break
        rc, timed_out = run_group(pytest_cmd(args, (plugin_args or []) + extra), tests_dir, env, remaining_time,
                                  log_path, report=report, hang_limit=args.test_timeout + 30)
        info["pytest_runs"] += 1
        events = read_events(report)
        started = None
        for ev in events:
            if ev["event"] == "collected" and collected is None:
                collected = {t: g for t, g in ev["tests"]}
                order = [t for t, _ in ev["tests"]]
            elif ev["event"] == "start":
                started = ev["id"]
            elif ev["event"] == "result":
                results[ev["id"]] = {"outcome": ev["outcome"], "seconds": ev["seconds"], "message": ev["message"]}
                started = None
        if collected is None:
            info["collect_failed"] = True
            break
        if started is not None and started not in results:
            # hung (DeepSpeed's harness called pytest.exit after DS_UNITTEST_TIMEOUT, or the watchdog or the
            # outer timeout killed it): run it once more in a fresh process (gloo start-up hangs are
            # flaky); a second hang counts as a failure
            start_time = [e["time"] for e in events if e["event"] == "start" and e["id"] == started][-1]
            info["hangs"].append(started)
            if info["hangs"].count(started) >= 2 or timed_out:
                results[started] = {"outcome": "failed", "seconds": round(time.time() - start_time, 3),
                                    "message": "hang: no result within the time limit"}
            continue
        if all(t in results for t in order):
            break
        if timed_out or attempt >= 1 + len(order):
            break
        # pytest stopped without a started test (e.g. an internal error): retry the rest once more
        if attempt > 2 and not events:
            break
    info["pytest_seconds"] = round(time.time() - t1, 1)
    info["build_seconds"] = round(t_build, 1)
    if wanted is not None:
        info["not_collected"] = [t for t in wanted if t not in (collected or {})]
    out = []
    for t in order:
        r = results.get(t)
        if r is None:
            r = {"outcome": "error", "seconds": 0.0, "message": "not run (run cut short)"}
        rec = {"id": t, "outcome": r["outcome"], "seconds": r["seconds"], "gpus": collected.get(t, 1)}
        if r["message"] and r["outcome"] not in ("passed",):
            rec["message"] = r["message"]
        out.append(rec)
    return out, info


def id_selection(words, tests_dir, prefix, rundir):
    """--select-by-id: the test ids of a tests file become a filter (DS_HISTORY_SELECT, applied by the
    reporter plugin) and pytest gets their files, those that exist at this commit, instead of the ids."""
    ids, other, files = [], [], []
    for w in words:
        if "::" in w and not w.startswith("-"):
            ids.append(prefix + w)
            f = w.split("::", 1)[0]
            if f not in files and os.path.exists(os.path.join(tests_dir, f)):
                files.append(f)
        else:
            other.append(w)
    with open(os.path.join(rundir, "selected-ids.txt"), "w", encoding="utf-8") as fh:
        fh.write("".join(i + "\n" for i in ids))
    return other + files, ids


def counts(results):
    c = {}
    for r in results:
        c[r["outcome"]] = c.get(r["outcome"], 0) + 1
    return c


def fmt_counts(c):
    return " ".join("%s=%d" % (k, c[k]) for k in sorted(c))


# ---------------------------------------------------------------------------------------------------
# evidence


def record_evidence(args, repo, commits, state):
    base = commits[0]["base"]
    if state.get("evidence", {}).get("commit") == base:
        return state["evidence"]
    evdir = os.path.join(args.out, "evidence", base[:12])
    shutil.rmtree(evdir, ignore_errors=True)
    os.makedirs(evdir)
    checkout(repo, base)
    log("evidence: running the subset with fastci_pytest at %s (parent of %s)" % (base[:10], commits[0]["commit"][:10]))
    t0 = time.time()
    results, info = run_subset(args, repo, "evidence-" + base[:12], plugin_args=["-p", "fastci_pytest",
                                                                                   "--fastci-evidence=" + evdir],
                               env_extra={"FASTCI_COMMIT": base})
    wall = time.time() - t0
    c = counts(results)
    log("evidence: %s in %.0f s (%d hangs)" % (fmt_counts(c), wall, len(info["hangs"])))
    files = sorted(os.path.join(evdir, f) for f in os.listdir(evdir) if f.endswith(".jsonl") or f.endswith(".tmp"))
    cmd = [args.fastci, "--repo", repo, "ingest", "--format", "fastci-jsonl", "--store", args.store, "--run",
           "base-" + base[:12], "--commit", base, "--runner", args.runner] + files
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log("ingest rc=%d: %s" % (proc.returncode, proc.stdout.strip().replace("\n", " | ")[:800]))
    stats = subprocess.run([args.fastci, "--repo", repo, "evidence", "stats", "--store", args.store],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    log("evidence stats: " + stats.strip().replace("\n", " | "))
    worker_cov = 0
    worker_tests = set()
    for f in files:
        with open(f, encoding="utf-8") as fh:
            first = fh.readline()
            try:
                role = json.loads(first).get("process", {}).get("role")
            except ValueError:
                role = None
            if role != "worker":
                continue
            for line in fh:
                if '"coverage"' in line:
                    try:
                        rec = json.loads(line)
                    except ValueError:
                        continue
                    if rec.get("type") == "coverage":
                        worker_cov += 1
                        worker_tests.add(rec.get("test"))
    ev = {"commit": base, "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
          "dir": os.path.relpath(evdir, args.out), "files": len(files), "outcomes": c,
          "seconds": round(wall, 1), "ingest_rc": proc.returncode, "ingest_output": proc.stdout[-4000:],
          "stats": stats, "worker_coverage_records": worker_cov, "tests_with_worker_coverage": len(worker_tests),
          "hangs": info["hangs"]}
    log("evidence: %d files, %d worker coverage records over %d tests" % (len(files), worker_cov, len(worker_tests)))
    state["evidence"] = ev
    return ev


def executed_from_evidence(args, state):
    """Sets of executed functions (`path::qualname`) and covered files in the start evidence."""
    funcs, files = set(), set()
    ev = state.get("evidence")
    if not ev:
        return funcs, files
    evdir = os.path.join(args.out, ev["dir"])
    if not os.path.isdir(evdir):
        # a recording resumed elsewhere from history.json, state.json and evidence.db only: the raw JSONL
        # files stayed behind, their summary is in state.json (saved below in main)
        return set(ev.get("executed_functions", [])), set(ev.get("covered_files", []))
    for rec in evidence_records(evdir, ("context", "coverage")):
        if rec["type"] == "context":
            funcs.add(rec["function"])
        elif rec.get("lines"):
            files.add(rec["file"])
    return funcs, files


def evidence_records(evdir, types):
    """The records of the given types in a folder of the plugin's JSONL files (a line cut short by a
    killed process is skipped)."""
    for name in sorted(os.listdir(evdir)):
        with open(os.path.join(evdir, name), encoding="utf-8") as fh:
            for line in fh:
                if not any('"%s"' % t in line for t in types):
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("type") in types:
                    yield rec


# ---------------------------------------------------------------------------------------------------
# mutants

CMP_SWAPS = [("<=", "<"), (">=", ">"), ("==", "!="), ("!=", "=="), ("<", "<="), (">", ">=")]


def diff_sides(repo, old, new, paths):
    """{(old path or None, new path or None): (old line numbers, new line numbers)} of the lines that differ
    between two commits; a side a file did not exist on is None."""
    diff = git(repo, "diff", "-U0", "--no-renames", old, new, "--", *paths)
    out, cur, a = {}, None, None
    for line in diff.splitlines():
        if line.startswith("--- "):
            a = line[6:] if line.startswith("--- a/") else None
        elif line.startswith("+++ "):
            cur = (a, line[6:] if line.startswith("+++ b/") else None)
            out[cur] = (set(), set())
        elif line.startswith("@@") and cur:
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
            for side, start, n in ((0, m.group(1), m.group(2)), (1, m.group(3), m.group(4))):
                start, n = int(start), int("1" if n is None else n)
                out[cur][side].update(range(start, start + n))
    return out


def changed_lines(repo, commit, base, paths):
    """{file: set(new line numbers)} of lines the commit added or changed."""
    return {new: lines for (_, new), (_, lines) in diff_sides(repo, base, commit, paths).items() if new is not None}


def line_mutations(text, lang):
    """Candidate (operator, mutated_line) for one source line."""
    code = text
    if lang == "py":
        cut = code.find("#")
        if cut >= 0:
            code = code[:cut]
    else:
        cut = code.find("//")
        if cut >= 0:
            code = code[:cut]
        stripped = code.strip()
        if stripped.startswith(("#", "*", "/*")) or not stripped:
            return []
    if not code.strip():
        return []
    muts = []

    def in_string(pos):
        return code[:pos].count('"') % 2 == 1 or (lang == "py" and code[:pos].count("'") % 2 == 1)

    def add(op, start, end, repl):
        if in_string(start):
            return
        muts.append((op, text[:start] + repl + text[end:]))

    for m in re.finditer(r"(?<![<>=!\-])(<=|>=|==|!=|<|>)(?![<>=])", code):
        tok = m.group(1)
        if lang == "cpp" and tok in ("<", ">") and not re.search(r"\s$", code[:m.start()]):
            continue  # templates: only spaced comparisons
        if lang == "py" and tok in ("<", ">") and code[m.start() - 1:m.start()] == "-":
            continue
        for a, b in CMP_SWAPS:
            if tok == a:
                add("comparison", m.start(), m.end(), b)
                break
    for m in re.finditer(r"(?<=\s)([+\-*/])(?=\s)", code):
        repl = {"+": "-", "-": "+", "*": "/", "/": "*"}[m.group(1)]
        if lang == "cpp" and m.group(1) == "/":
            repl = "*"
        add("arithmetic", m.start(), m.end(), repl)
    if lang == "py":
        for m in re.finditer(r"\b(and|or)\b", code):
            add("logical", m.start(), m.end(), "or" if m.group(1) == "and" else "and")
        for m in re.finditer(r"\b(True|False)\b", code):
            add("constant", m.start(), m.end(), "False" if m.group(1) == "True" else "True")
        m = re.match(r"^(\s*)(if|elif|while)\s+(.+):\s*$", code)
        if m:
            muts.append(("condition", "%s%s not (%s):" % (m.group(1), m.group(2), m.group(3))))
    else:
        for m in re.finditer(r"(&&|\|\|)", code):
            add("logical", m.start(), m.end(), "||" if m.group(1) == "&&" else "&&")
        for m in re.finditer(r"\b(true|false)\b", code):
            add("constant", m.start(), m.end(), "false" if m.group(1) == "true" else "true")
        m = re.search(r"\b(if|while)\s*\(", code)
        if m:
            open_pos = m.end() - 1
            depth = 0
            for i in range(open_pos, len(code)):
                if code[i] == "(":
                    depth += 1
                elif code[i] == ")":
                    depth -= 1
                    if depth == 0:
                        add("condition", open_pos, i + 1, "(!" + code[open_pos:i + 1] + ")")
                        break
    for m in re.finditer(r"(?<![\w.])(\d+)(?![\w.])", code):
        if m.group(1) == "0" and code[m.end():m.end() + 1] == ".":
            continue
        add("constant", m.start(), m.end(), str(int(m.group(1)) + 1))
    for m in re.finditer(r"(?<![\w.])0\.0(?![\w.])", code):
        add("constant", m.start(), m.end(), "1.0")
    return muts


def _strip_strings(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            node.value = ""
        if isinstance(node, ast.JoinedStr):
            node.values = []
    return ast.dump(tree)


def python_valid(original_src, mutated_src, path):
    try:
        compile(mutated_src, path, "exec")
        new = ast.parse(mutated_src)
    except (SyntaxError, ValueError):
        return False
    old = ast.parse(original_src)
    if ast.dump(old) == ast.dump(new):
        return False  # comment only
    return _strip_strings(old) != _strip_strings(new)  # not only inside strings


def innermost_function(funcs, line):
    """Qualified name of the innermost of `funcs` (enclosing_functions) holding `line`, or None."""
    inner = [f for f in funcs if f[0] <= line <= f[1]]
    return max(inner, key=lambda f: f[0])[2] if inner else None


def enclosing_functions(src):
    """[(first, last, qualname)] of every function in a module, like co_qualname."""
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out.append((first, child.end_lineno, q))
                visit(child, q + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(src), "")
    return out


def built_cpp_files(args, repo):
    """csrc files compiled by the JIT extensions in TORCH_EXTENSIONS_DIR (sources and their local headers)."""
    files = set()
    if not os.path.isdir(args.extensions_dir):
        return files
    root = os.path.realpath(repo) + os.sep
    for name in os.listdir(args.extensions_dir):
        ninja = os.path.join(args.extensions_dir, name, "build.ninja")
        if not os.path.exists(ninja):
            continue
        with open(ninja, encoding="utf-8") as fh:
            for tok in re.findall(r"(/\S+\.(?:cpp|cc|cu))", fh.read()):
                if tok.startswith(root):
                    files.add(os.path.relpath(tok, root))
    headers = set()
    for f in list(files):
        path = os.path.join(repo, f)
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as fh:
                for inc in re.findall(r'#include\s+"([^"]+)"', fh.read()):
                    headers.add(os.path.basename(inc))
    for dirpath, _, names in os.walk(os.path.join(repo, "csrc")):
        for n in names:
            if n in headers:
                files.add(os.path.relpath(os.path.join(dirpath, n), repo))
    return files


def mutant_candidates(args, repo, entry, executed_funcs, covered_files, built_cpp):
    cands = []
    changed = changed_lines(repo, entry["commit"], entry["base"], args.mutate_paths.split(","))
    for path, lines in sorted(changed.items()):
        if path.endswith(".py"):
            lang = "py"
        elif path.startswith("csrc/") and path.endswith((".cpp", ".cc", ".h")):
            lang = "cpp"
        else:
            continue
        src = git(repo, "show", "%s:%s" % (entry["commit"], path))
        src_lines = src.split("\n")
        funcs = []
        if lang == "py":
            try:
                funcs = enclosing_functions(src)
            except SyntaxError:
                continue
        for ln in sorted(lines):
            if ln < 1 or ln > len(src_lines):
                continue
            text = src_lines[ln - 1]
            executed = False
            where = None
            if lang == "py":
                where = innermost_function(funcs, ln)
                if where:
                    executed = any("%s::%s" % (p, where) in executed_funcs for p in (path, path_alias(path)))
                else:
                    executed = path in covered_files or path_alias(path) in covered_files
            else:
                executed = path in built_cpp
                if not executed:
                    continue  # C++ that the extensions on this machine do not compile cannot fail a test
            for op, new_text in line_mutations(text, lang):
                if new_text == text:
                    continue
                if lang == "py":
                    mutated = "\n".join(src_lines[:ln - 1] + [new_text] + src_lines[ln:])
                    if not python_valid(src, mutated, path):
                        continue
                cands.append({"file": path, "line": ln, "operator": op, "original": text.strip(),
                              "replacement": new_text.strip(), "lang": lang, "executed": executed,
                              "function": where, "_new_line": new_text})
    return cands


def covering_tests(store, cand):
    """Ids of the tests whose start evidence executed the function holding a mutated Python line (the
    function's contexts, worker processes included), or None where the evidence cannot narrow the run:
    module level and class bodies (they run at import, which no test's context holds), C++, and functions
    the start run did not execute (added or renamed since). At a later commit some of these may no longer
    run it and others may: covering_with_probe."""
    if cand["lang"] != "py" or not cand.get("function") or not cand["executed"]:
        return None
    keys = sorted(set("%s::%s" % (p, cand["function"]) for p in (cand["file"], path_alias(cand["file"]))))
    return test_names(store, "SELECT DISTINCT t.name FROM contexts c JOIN tests t ON t.id = c.test_id "
                             "WHERE c.function IN (%s)", keys) or None


def test_names(store, query, values):
    """The first column of `query` (one "%s" for its IN list) over `values`, asked of the store (read only)
    in chunks that SQLite's parameter limit allows."""
    con = sqlite3.connect("file:%s?mode=ro" % store, uri=True)
    try:
        out = set()
        for i in range(0, len(values), 500):
            chunk = values[i:i + 500]
            out.update(r[0] for r in con.execute(query % ",".join("?" * len(chunk)), chunk))
        return out
    finally:
        con.close()


def touched_code(src, lines):
    """(qualified names of the innermost functions holding any of `lines`, whether one of the others holds
    code: module level or a class body, which run at import)"""
    funcs = enclosing_functions(src)
    text = src.split("\n")
    names, module_level = set(), False
    for ln in lines:
        name = innermost_function(funcs, ln)
        if name:
            names.add(name)
        elif 0 < ln <= len(text) and text[ln - 1].strip() and not text[ln - 1].strip().startswith("#"):
            module_level = True
    return names, module_level


def code_drift(repo, start, commit, paths):
    """What of the Python under `paths` differs between the start evidence's commit and `commit`:
    ({path::qualname of every function whose lines differ, named as at either commit}, {files whose
    module level or class bodies differ}). A file that does not parse counts as changed at module level."""
    funcs, files = set(), set()
    for (a, b), (old_lines, new_lines) in diff_sides(repo, start, commit, paths).items():
        for path, rev, lines in ((a, start, old_lines), (b, commit, new_lines)):
            if path is None or not path.endswith(".py") or not lines:
                continue
            try:
                names, module_level = touched_code(git(repo, "show", "%s:%s" % (rev, path)), lines)
            except (SyntaxError, ValueError):
                names, module_level = set(), True
            funcs.update("%s::%s" % (path, q) for q in names)
            if module_level:
                files.add(path)
    return funcs, files


def drifted_tests(store, drift):
    """Ids of the tests whose start evidence may not hold their path at a later commit: they executed a
    function that changed since (its contexts), or lines of a file whose module level or class bodies
    changed (its coverage). A test none of whose executed code changed runs the same code as at the start."""
    funcs, files = drift
    keys = sorted(set("%s::%s" % (p, q) for f in funcs for path, q in [f.split("::", 1)]
                      for p in (path, path_alias(path))))
    paths = sorted(set(p2 for p in files for p2 in (p, path_alias(p))))
    return (test_names(store, "SELECT DISTINCT t.name FROM contexts c JOIN tests t ON t.id = c.test_id "
                              "WHERE c.function IN (%s)", keys) |
            test_names(store, "SELECT DISTINCT t.name FROM coverage c JOIN tests t ON t.id = c.test_id JOIN files f "
                              "ON f.id = c.file_id WHERE f.path IN (%s)", paths))


def probe_commit(args, repo, entry, tests, files):
    """Runs `tests` at a real commit under the fastci plugin, recording the folders of `files` only, and
    returns what each test executed there: {"executed": {test: [path::qualname]}, "outcomes": {test:
    outcome}, ...}. The tests whose start evidence drifted are probed once per commit, so that each
    mutant of the commit runs those of them that reach its function, not all."""
    evdir = os.path.join(args.out, "probes", entry["commit"][:12])
    shutil.rmtree(evdir, ignore_errors=True)
    os.makedirs(evdir)
    checkout(repo, entry["commit"])
    folders = sorted(set(os.path.dirname(f) for f in files))
    plugin = ["-p", "fastci_pytest", "--fastci-evidence=" + evdir] + [
        "--fastci-source=" + os.path.join(repo, d) for d in folders]
    t0 = time.time()
    results, info = run_subset(args, repo, "probe-" + entry["commit"][:12], plugin_args=plugin,
                               env_extra={"FASTCI_COMMIT": entry["commit"]}, only=set(tests))
    executed = {}
    for rec in evidence_records(evdir, ("context",)):
        if rec.get("test"):
            executed.setdefault(rec["test"], set()).add(rec["function"])
    return {"tests": sorted(tests), "folders": folders, "outcomes": {r["id"]: r["outcome"] for r in results},
            "executed": {t: sorted(f) for t, f in sorted(executed.items())}, "hangs": info["hangs"],
            "seconds": round(time.time() - t0, 1)}


def covering_with_probe(narrow, drifted, probe, cand):
    """A narrowable mutant's tests: those of `narrow` (start evidence) whose path has not drifted, and the
    drifted ones that executed the mutated function at the mutant's real commit (`probe`), or that the
    probe could not tell about (not run there, or not passing: their record may stop short)."""
    keys = set("%s::%s" % (p, cand["function"]) for p in (cand["file"], path_alias(cand["file"])))
    outcomes, executed = probe["outcomes"], probe["executed"]
    told = ("passed", "skipped", "xfailed", "xpassed")
    reach = set(t for t in drifted if outcomes.get(t) not in told or keys & set(executed.get(t, ())))
    return (set(narrow) - set(drifted)) | reach


def mark_executed_at_commit(cands, drifted, probe):
    """Marks executed the Python candidates in a function that a drifted test passing at the probe ran
    there (`executed_at_commit`), and returns how many. A test that did not drift runs the code it ran at
    the start, so only drifted tests (those without start evidence among them) can run a function the
    start evidence never saw."""
    ran = set()
    for test in drifted:
        if probe["outcomes"].get(test) in PASSING:
            ran.update(probe["executed"].get(test, ()))
    found = 0
    for cand in cands:
        if cand["lang"] != "py" or not cand.get("function") or cand["executed"]:
            continue
        if any("%s::%s" % (p, cand["function"]) in ran for p in (cand["file"], path_alias(cand["file"]))):
            cand["executed"] = cand["executed_at_commit"] = True
            found += 1
    return found


def reused_pool_classes(repo, commit, tests_dir="tests"):
    """"path::Class" of the DistributedTest classes that set `reuse_dist_env = True` at a commit: their
    tests run in one pool of worker processes, and a plugin older than fastci 2c8d7ed attributed what a
    worker executes to the test it last saw (it polled the running test's id), so in evidence it recorded
    (deepspeed-cpu-latest's start evidence) a short test's work can sit on the test before it."""
    out = set()
    hits = git(repo, "grep", "-n", "reuse_dist_env *= *True", commit, "--", tests_dir, check=False)
    by_file = {}
    for line in hits.splitlines():
        parts = line.split(":", 3)  # commit:path:line:text
        if len(parts) == 4:
            by_file.setdefault(parts[1], set()).add(int(parts[2]))
    for path, lines in by_file.items():
        try:
            tree = ast.parse(git(repo, "show", "%s:%s" % (commit, path)))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(node.lineno <= ln <= node.end_lineno for ln in lines):
                out.add("%s::%s" % (path, node.name))
    return out


def with_pool_neighbours(covering, ids, classes):
    """`covering` with every test of `ids` in a reused-pool class (reused_pool_classes) one of whose tests
    it holds: what the plugin attributed to one of them may be another's."""
    def class_of(test):
        parts = test.split("::")
        return "::".join(parts[:2]) if len(parts) > 2 else None
    hit = set(class_of(t) for t in covering) & set(classes)
    return set(covering) | set(t for t in ids if class_of(t) in hit)


def tests_without_evidence(store, ids):
    """The ids among `ids` that the start evidence has no record of (added or renamed since)."""
    con = sqlite3.connect("file:%s?mode=ro" % store, uri=True)
    try:
        known = set(r[0] for r in con.execute("SELECT name FROM tests"))
    finally:
        con.close()
    return set(ids) - known


def whole_run_reason(args, cand, full_check):
    """Why a mutant ran the whole subset."""
    if args.mutant_tests == "all":
        return "--mutant-tests all"
    if full_check:
        return "shortcut check: a random share of the mutants runs every test"
    if cand["lang"] == "cpp":
        return "C++: the start evidence does not say which tests run it"
    if not cand.get("function"):
        return "module level or class body: runs at import, in no test's context"
    return "the start run did not execute %s::%s" % (cand["file"], cand["function"])


def merge_with_real(ran, real_results):
    """A mutant's results when only some tests ran: theirs, and for every other test of the real commit's
    run its recorded result (marked "copied"), in the real run's order."""
    by_id = {r["id"]: r for r in ran}
    out = []
    for r in real_results:
        if r["id"] in by_id:
            out.append(by_id.pop(r["id"]))
        else:
            copy = dict(r)
            copy["copied"] = True
            out.append(copy)
    out.extend(r for r in ran if r["id"] in by_id)
    return out


def add_uncollected(results, real_results, expected, ran=None):
    """A mutant's results with the expected tests (its covering tests, or all) that the real commit ran
    and the mutant's run did not collect counted as errors: their files failed to import or collect (a
    mutant that breaks an import kills every test of the files importing it). `ran`: the ids the
    mutant's run did report, where `results` also holds results copied from the real commit."""
    have = set(r["id"] for r in results) if ran is None else set(ran)
    missing = [r for r in real_results if r["id"] in expected and r["id"] not in have]
    if not missing:
        return results, []
    ids = set(r["id"] for r in missing)
    out = [r for r in results if r["id"] not in ids]
    for r in missing:
        out.append({"id": r["id"], "outcome": "error", "seconds": 0.0, "gpus": r.get("gpus", 1),
                    "message": "not collected at the mutant: its file failed to import or collect"})
    return out, sorted(ids)


def mutation_candidate(mutant):
    """A recorded mutant's mutation in the form mutant_candidates gives."""
    m = mutant["mutation"]
    return {"lang": m["lang"], "function": m.get("function"), "file": m["file"],
            "executed": m.get("executed_by_subset", True) or m.get("executed_at_commit", False),
            "executed_at_commit": m.get("executed_at_commit", False)}


def expected_tests(args, mutant, real, covering_for):
    """The tests a recorded mutant's run was to report: its covering tests (`covering_for(candidate)`
    where it ran them, the start evidence's before), or every test of the real run."""
    tests_run = mutant.get("tests_run", {})
    if tests_run.get("rule") == "covering":
        cand = mutation_candidate(mutant)
        return (covering_for(cand) if "drift" in tests_run else covering_tests(args.store, cand)) or set()
    return set(r["id"] for r in real["results"])


def widen_mutant(args, repo, mutant, real, covering, unstable):
    """Runs the covering tests (covering_with_probe) a mutant recorded before the drift rule did not run
    (their results were copied from the real commit) and records what they found. Returns the number of
    tests run."""
    tests_run = mutant["tests_run"]
    missing = set(covering) & set(r["id"] for r in real["results"]) - set(tests_run["ran_tests"])
    t0 = time.time()
    found, uncollected, hangs = [], [], []
    if missing:
        if git(repo, "rev-parse", "-q", "--verify", mutant["commit"] + "^{commit}", check=False).strip() != mutant["commit"]:
            if recreate_mutant(repo, mutant) != mutant["commit"]:
                raise RuntimeError("mutant %d could not be made again" % mutant["mutant_id"])
        checkout(repo, mutant["commit"])
        results, info = run_subset(args, repo, "mutant-%03d-drift" % mutant["mutant_id"], only=missing)
        ran = [r["id"] for r in results]
        results, uncollected = add_uncollected(results, real["results"], missing)
        hangs = info["hangs"]
        passed_real = passing_ids(real["results"])
        failed = [r["id"] for r in results if r["outcome"] in ("failed", "error") and r["id"] in passed_real]
        found = [k for k in failed if k not in unstable]
        by_id = {r["id"]: r for r in results}
        mutant["results"] = [by_id.pop(r["id"], r) for r in mutant["results"]] + list(by_id.values())
        mutant["counts"] = counts(mutant["results"])
        mutant["killed_by"] = sorted(set(mutant["killed_by"]) | set(found))
        mutant["unstable_failures"] = sorted(set(mutant.get("unstable_failures", [])) |
                                             set(k for k in failed if k in unstable))
        mutant["not_collected"] = sorted(set(mutant.get("not_collected", [])) | set(uncollected))
        if hangs:
            mutant["hangs"] = mutant.get("hangs", []) + hangs
        tests_run["ran_tests"] = sorted(set(tests_run["ran_tests"]) | set(ran))
        tests_run["ran"] = len(tests_run["ran_tests"])
    seconds = round(time.time() - t0, 1)
    mutant["wall_seconds"] = round(mutant["wall_seconds"] + seconds, 1)
    before = tests_run.get("drift", {})  # completed under an earlier rule: what it added stays
    tests_run["drift"] = {"added": before.get("added", 0) + len(missing),
                          "killers_found": sorted(set(before.get("killers_found", [])) | set(found)),
                          "seconds": round(before.get("seconds", 0) + seconds, 1), "recorded": "after the mutant",
                          "rule": DRIFT_RULE}
    if DRIFT_REASON not in tests_run["reason"]:
        head = tests_run["reason"].split(" and had not drifted")[0].split("; the others'")[0]
        tests_run["reason"] = head + DRIFT_REASON + "; the others' results are the real commit's (copied)"
    return len(missing)


# The rule a narrowable mutant's tests follow (covering_for); an entry made under another is completed.
DRIFT_RULE = "probe, reused pools"

# About what one probe (probe_commit) takes here: a few hundred DeepSpeed tests, most of them distributed.
PROBE_MINUTES = 20


class DeadlineReached(Exception):
    """--deadline-minutes leaves too little time for the next run."""


DRIFT_REASON = (" and had not drifted, those whose start evidence executed code changed since the start (a "
                "function, or a file's module level) that executed it at the real commit, and the tests of a "
                "reused-pool class one of these is in")


def covering_reason(cand):
    """Why a narrowable mutant ran the tests it ran (its entry's tests_run.reason)."""
    where = "%s::%s" % (cand["file"], cand["function"])
    if cand.get("executed_at_commit"):
        who = ("no test's start evidence executed %s (added or renamed since): the tests whose start evidence "
               "drifted that executed it at the real commit (its probe), and the tests of a reused-pool class one "
               "of these is in" % where)
    else:
        who = "the tests whose start evidence executed %s%s" % (where, DRIFT_REASON)
    return who + "; the others' results are the real commit's (copied)"


PASSING = ("passed", "xfailed")  # xfail counts: the test ran as expected


def passing_ids(results):
    """Ids of the tests a run passed; only these can kill a mutant."""
    return set(r["id"] for r in results if r["outcome"] in PASSING)


def path_alias(path):
    # deepspeed/accelerator is a link to accelerator/ in DeepSpeed's tree
    if path.startswith("accelerator/"):
        return "deepspeed/" + path
    if path.startswith("deepspeed/accelerator/"):
        return path[len("deepspeed/"):]
    return path


def unstable_tests(real_entries):
    """Tests that fail (or error) at some recorded real commits and pass at others."""
    failed, passed = set(), set()
    for entry in real_entries:
        for r in entry["results"]:
            if r["outcome"] in ("failed", "error"):
                failed.add(r["id"])
            elif r["outcome"] in PASSING:
                passed.add(r["id"])
    return failed & passed


def drop_unstable_killers(mutant, unstable):
    """Moves a mutant's killers that are unstable tests to its "unstable_failures"; True if any moved."""
    moved = [k for k in mutant.get("killed_by", []) if k in unstable]
    if not moved:
        return False
    mutant["killed_by"] = [k for k in mutant["killed_by"] if k not in unstable]
    mutant["unstable_failures"] = sorted(set(mutant.get("unstable_failures", [])) | set(moved))
    return True


def mutant_commit_rank(cands, index, probed=False):
    """Sort key of a commit in the mutant phase: commits with executed candidates first, then those
    with a candidate inside an executed function (narrowable: only its covering tests run), among them
    those probed already (covering_with_probe: their probe, a quarter of an hour, is paid), then range
    order."""
    executed = [c for c in cands if c["executed"]]
    narrowable = any(c["lang"] == "py" and c.get("function") for c in executed)
    return (not executed, not narrowable, not (narrowable and probed), index)


def choose_mutants(cands, k, rng, unexecuted=False):
    """Candidates in the order to try them: C++ first, each group shuffled; only lines the start evidence
    saw executed unless `unexecuted` (then those first, the others where a commit has none)."""
    if not cands:
        return []
    pool = [c for c in cands if c["executed"]] or (cands if unexecuted else [])
    cpp = [c for c in pool if c["lang"] == "cpp"]
    py = [c for c in pool if c["lang"] == "py"]
    order = []
    for group in ([cpp, py] if cpp else [py]):
        g = list(group)
        rng.shuffle(g)
        order.extend(g)
    # interleave languages, then prefer distinct lines
    if cpp and py:
        a, b = [c for c in order if c["lang"] == "cpp"], [c for c in order if c["lang"] == "py"]
        order = [x for pair in zip(a, b) for x in pair] + a[len(b):] + b[len(a):]
    picked, lines = [], set()
    for c in order:
        key = (c["file"], c["line"])
        if key in lines:
            continue
        picked.append(c)
        lines.add(key)
    rest = [c for c in order if c not in picked]
    return picked + rest  # in preference order; the caller takes k valid ones


def recreate_mutant(repo, entry):
    """Makes a recorded mutant's commit again from the history entry alone (make_mutant is deterministic:
    the same line, identity, dates and message give the same id), for a repository that never held it (a
    recording resumed on another machine). Returns the new id; the caller compares it with the entry's."""
    m = entry["mutation"]
    checkout(repo, entry["mutant_of"])
    with open(os.path.join(repo, m["file"]), encoding="utf-8") as fh:
        text = fh.read().split("\n")[m["line"] - 1]
    new = [t for op, t in line_mutations(text, m["lang"]) if op == m["operator"] and t.strip() == m["replacement"]]
    if text.strip() != m["original"] or not new:
        raise RuntimeError("%s:%d at %s is not the recorded line of mutant %s" %
                           (m["file"], m["line"], entry["mutant_of"][:10], entry["commit"][:10]))
    return make_mutant(repo, {"commit": entry["mutant_of"]}, dict(m, _new_line=new[0]), entry["mutant_id"])


def make_mutant(repo, entry, cand, number):
    checkout(repo, entry["commit"])
    path = os.path.join(repo, cand["file"])
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    if lines[cand["line"] - 1].strip() != cand["original"]:
        raise RuntimeError("line mismatch in %s:%d" % (cand["file"], cand["line"]))
    lines[cand["line"] - 1] = cand["_new_line"]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))
    date = git(repo, "log", "-1", "--format=%cI", entry["commit"]).strip()
    env = dict(os.environ, GIT_AUTHOR_NAME="mutant", GIT_AUTHOR_EMAIL="mutant@example.invalid",
               GIT_COMMITTER_NAME="mutant", GIT_COMMITTER_EMAIL="mutant@example.invalid", GIT_AUTHOR_DATE=date,
               GIT_COMMITTER_DATE=date)
    msg = "mutant %d of %s: %s %s:%d" % (number, entry["commit"][:10], cand["operator"], cand["file"], cand["line"])
    # Commit through a temporary index: a partial clone may lack blobs of paths outside the sparse
    # checkout, which `git commit` would try to verify.
    blob = git(repo, "hash-object", "-w", cand["file"]).strip()
    mode = git(repo, "ls-tree", entry["commit"], "--", cand["file"]).split()[0]
    fd, index = tempfile.mkstemp(prefix="mutant-index-")
    os.close(fd)
    try:
        ienv = dict(env, GIT_INDEX_FILE=index)
        git(repo, "read-tree", entry["commit"], env=ienv)
        git(repo, "update-index", "--cacheinfo", "%s,%s,%s" % (mode, blob, cand["file"]), env=ienv)
        tree = git(repo, "write-tree", "--missing-ok", env=ienv).strip()
    finally:
        os.unlink(index)
    sha = git(repo, "commit-tree", tree, "-p", entry["commit"], "-m", msg, env=env).strip()
    git(repo, "checkout", "-q", "-f", "--detach", sha)
    git(repo, "branch", "-f", "mutant/%d" % number, sha)
    return sha


# ---------------------------------------------------------------------------------------------------
# history file


def load_history(args):
    path = os.path.join(args.out, "history.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    return None


def write_history(args, history):
    path = os.path.join(args.out, "history.json")
    # real commits in order, each followed by its mutants
    reals = [e for e in history["commits"] if e.get("kind") != "mutant"]
    order = {e["commit"]: i for i, e in enumerate(history["_order"])}
    reals.sort(key=lambda e: order.get(e["commit"], 1e9))
    out = []
    for r in reals:
        out.append(r)
        ms = [e for e in history["commits"] if e.get("kind") == "mutant" and e["mutant_of"] == r["commit"]]
        out.extend(sorted(ms, key=lambda e: e["mutant_id"]))
    doc = {k: v for k, v in history.items() if not k.startswith("_")}
    doc["commits"] = out
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, path)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--source", required=True, help="DeepSpeed git repository (path or URL) to clone from")
    p.add_argument("--out", required=True, help="output folder: repo/, history.json, evidence.db, runs/")
    p.add_argument("--last", default="v0.14.2", help="last commit of the range")
    p.add_argument("--first", help="first commit of the range (default: --count commits ending at --last)")
    p.add_argument("--count", type=int, default=30, help="number of commits when --first is not given")
    p.add_argument("--paths", default="deepspeed,csrc,op_builder",
                   help="a commit counts when it touches one of these paths")
    p.add_argument("--mutate-paths", default="deepspeed,accelerator,op_builder,csrc",
                   help="paths whose added lines may be mutated")
    p.add_argument("--touch-paths", default=DEFAULT_TOUCH_PATHS,
                   help="paths whose changes each real commit's changed_files and executed_changed_* list "
                   "(another framework: its code folders, e.g. torchtune)")
    p.add_argument("--drift-paths", default=DEFAULT_DRIFT_PATHS,
                   help="Python folders whose changes since the start evidence widen a narrowable mutant's run to "
                   "the tests whose start evidence executed the changed code (the tests' own folder included)")
    p.add_argument("--tests-file", help="pytest arguments relative to the tests folder, one or more per line, "
                   "shell-quoted; a line with '::' that does not start with '-' or a quote is one test id, verbatim; "
                   "'#' starts a comment line (default: the built-in CPU subset)")
    p.add_argument("--select-by-id", action="store_true",
                   help="the test ids of --tests-file select tests from their files (pytest collects the files "
                   "that exist at each commit): an id a commit lacks is left out of that commit's results "
                   "(listed as not_collected) instead of failing the run")
    p.add_argument("--version-info", metavar="TORCH_MAJOR.MINOR",
                   help="write deepspeed/git_version_info_installed.py into every checkout, as `pip install .` "
                   "with a CPU-only torch of this version does (DeepSpeed's CI installs DeepSpeed; without it the "
                   "tests read version 0.0.0 and no nccl_version)")
    p.add_argument("--tests-subdir", default="tests", help="folder of DeepSpeed holding pytest.ini")
    p.add_argument("--shims", help="folder of stand-in modules put first on PYTHONPATH (not needed with a "
                   "venv that has all of DeepSpeed's requirements)")
    p.add_argument("--env", action="append", type=env_pair, default=[], metavar="NAME=VALUE",
                   help="environment variable for the builds and test runs (repeatable; {repo} in VALUE is the "
                   "history clone), e.g. DS_ACCELERATOR=cpu or PATH={repo}/bin:VENV/bin:/usr/bin:/bin")
    p.add_argument("--fastci", required=True, help="the fastci binary (for ingest and evidence stats)")
    p.add_argument("--fastci-scripts", default=here, help="folder holding the fastci_pytest plugin package")
    p.add_argument("--python", default=sys.executable, help="interpreter with torch and pytest")
    p.add_argument("--extensions-dir", help="TORCH_EXTENSIONS_DIR (default OUT/torch-extensions)")
    p.add_argument("--store", help="evidence store (default OUT/evidence.db)")
    p.add_argument("--prebuild-ops", default=DEFAULT_PREBUILD_OPS,
                   help="op builders JIT-built before each run (comma separated; empty: none)")
    p.add_argument("--mutants-per-commit", type=int, default=1)
    p.add_argument("--mutant-tests", choices=["covering", "all"], default="covering",
                   help="covering: a Python mutant inside a function the start evidence saw executed runs only the "
                   "tests that executed it (the rest keep the real commit's results); all: every mutant runs the "
                   "whole subset")
    p.add_argument("--mutate-unexecuted", action="store_true",
                   help="a commit none of whose changed lines the start evidence saw executed gets mutants on "
                   "the others (default: no mutant there; such a fault can only fail a test whose path the start "
                   "run did not take)")
    p.add_argument("--probe-minutes", type=float, default=PROBE_MINUTES,
                   help="the time a probe may take: none starts with less left before --deadline-minutes "
                        "(default %(default)s, DeepSpeed's; torchtune's take under 5)")
    p.add_argument("--full-suite-share", type=float, default=0.1,
                   help="with --mutant-tests covering, the share of narrowable mutants (drawn at random) that run "
                   "the whole subset instead, recording which killers the covering tests would have missed")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cluster-gpus", type=int, default=8)
    p.add_argument("--local-size", type=int, default=4, help="LOCAL_SIZE for DeepSpeed's CPU accelerator")
    p.add_argument("--test-timeout", type=int, default=90, help="DS_UNITTEST_TIMEOUT: seconds before a "
                   "distributed test counts as hung")
    p.add_argument("--run-timeout", type=int, default=900, help="seconds for one run of the subset")
    p.add_argument("--build-timeout", type=int, default=900, help="seconds for the extension pre-build")
    p.add_argument("--nice", type=int, default=5)
    p.add_argument("--runner", default="cpu", help="runner name given to fastci ingest")
    p.add_argument("--redo-evidence", action="store_true",
                   help="record the start evidence again (e.g. with coverage.py newly installed) and store it in a "
                        "fresh OUT/evidence.db; recorded commits are kept, their touch summaries recomputed")
    p.add_argument("--phase", choices=["all", "commits", "mutants"], default="all",
                   help="all: evidence, every commit, then mutants; commits: no mutants; mutants: only mutants")
    p.add_argument("--deadline-minutes", type=float, default=0,
                   help="do not start a run after this many minutes (0: no limit)")
    args = p.parse_args()

    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)
    args.extensions_dir = os.path.abspath(args.extensions_dir or os.path.join(args.out, "torch-extensions"))
    args.store = os.path.abspath(args.store or os.path.join(args.out, "evidence.db"))
    args.shims = os.path.abspath(args.shims) if args.shims else None
    os.makedirs(os.path.join(args.out, "tools"), exist_ok=True)
    with open(os.path.join(args.out, "tools", "ds_history_report.py"), "w", encoding="utf-8") as fh:
        fh.write(REPORTER_PLUGIN)
    started = time.time()

    def time_left(needed_minutes=0):
        return not args.deadline_minutes or (time.time() - started) < (args.deadline_minutes - needed_minutes) * 60

    # a recorder killed during a JIT build leaves torch's lock file behind, and the next build waits on it
    # forever; this folder is this recorder's own
    if os.path.isdir(args.extensions_dir):
        for name in os.listdir(args.extensions_dir):
            lock = os.path.join(args.extensions_dir, name, "lock")
            if os.path.exists(lock):
                log("removing the stale build lock %s" % lock)
                os.remove(lock)
    repo = ensure_clone(args)
    commits = select_commits(args, repo)
    log("%d commits: %s^..%s" % (len(commits), commits[0]["commit"][:10], commits[-1]["commit"][:10]))
    words = test_args(args)
    test_command = ("cd %s && %sLOCAL_SIZE=%d PYTHONPATH=%s%s TORCH_EXTENSIONS_DIR=<cache> DS_UNITTEST_TIMEOUT=%d "
                    "%s -m pytest -p no:cacheprovider -rA %s" % (args.tests_subdir,
                                                               "".join("%s=%s " % (n, shlex.quote(v))
                                                                       for n, v in args.env),
                                                               args.local_size, "<shims>:" if args.shims else "",
                                                               # the clone, seen from the tests folder
                                                               os.path.relpath(".", args.tests_subdir).replace(os.sep, "/"),
                                                               args.test_timeout, args.python,
                                                               " ".join(shlex.quote(w) for w in words)))
    history = load_history(args) or {"format": HISTORY_FORMAT, "repository": "repo",
                                     "evidence_store": os.path.relpath(args.store, args.out),
                                     "cluster_gpus": args.cluster_gpus, "commits": []}
    history["test_command"] = test_command
    history["_order"] = commits
    state_path = os.path.join(args.out, "state.json")
    state = json.load(open(state_path, encoding="utf-8")) if os.path.exists(state_path) else {}

    def save():
        history["recording"] = state.get("evidence") and {
            "evidence_commit": state["evidence"]["commit"],
            "evidence_outcomes": state["evidence"]["outcomes"]}
        write_history(args, history)
        with open(state_path, "w", encoding="utf-8") as fh:
            json.dump(state, fh, indent=1)

    machine = machine_fingerprint(args)
    log("machine: %s" % json.dumps(machine))
    if args.redo_evidence and state.get("evidence"):
        log("dropping the start evidence of %s (--redo-evidence)" % state["evidence"].get("recorded_at", "an earlier run"))
        state.pop("evidence")
        state.pop("machine", None)
        if os.path.exists(args.store):
            os.remove(args.store)
    check_machine(state, machine)
    if args.phase in ("all", "commits", "mutants"):
        if time_left():
            if not state.get("evidence"):
                state["machine"] = {k: machine[k] for k in MACHINE_KEYS}
            record_evidence(args, repo, commits, state)
            save()
    executed_funcs, covered_files = executed_from_evidence(args, state)
    log("evidence: %d executed functions in %d files" % (len(executed_funcs), len(covered_files)))
    if state.get("evidence") and "executed_functions" not in state["evidence"]:
        # kept in state.json so that a copy of history.json, state.json and evidence.db resumes the recording
        state["evidence"]["executed_functions"] = sorted(executed_funcs)
        state["evidence"]["covered_files"] = sorted(covered_files)
        save()

    done = {e["commit"]: e for e in history["commits"] if e.get("kind") != "mutant"}
    refresh_touch_info(args, repo, done, state, executed_funcs, covered_files, save)
    if args.phase in ("all", "commits"):
        for i, entry in enumerate(commits):
            if entry["commit"] in done:
                continue
            if not time_left():
                log("deadline reached; stopping before %s" % entry["commit"][:10])
                break
            checkout(repo, entry["commit"])
            t0 = time.time()
            results, info = run_subset(args, repo, "commit-%02d-%s" % (i + 1, entry["commit"][:12]))
            rec = dict(entry)
            rec["results"] = results
            rec["wall_seconds"] = round(time.time() - t0, 1)
            rec["counts"] = counts(results)
            rec["machine"] = machine
            if info["hangs"]:
                rec["hangs"] = info["hangs"]
            if not info["prebuild_ok"]:
                rec["prebuild_failed"] = True
            if info.get("not_collected"):
                rec["not_collected"] = info["not_collected"]
            rec.update(touch_info(repo, entry, executed_funcs, covered_files, args.touch_paths.split(",")))
            rec["touch_evidence"] = (state.get("evidence") or {}).get("recorded_at")
            history["commits"].append(rec)
            done[entry["commit"]] = rec
            save()
            log("commit %d/%d %s: %s in %.0f s (build %.0f s)%s | %s" % (
                i + 1, len(commits), entry["commit"][:10], fmt_counts(rec["counts"]), rec["wall_seconds"],
                info["build_seconds"], " hangs=%d" % len(info["hangs"]) if info["hangs"] else "",
                entry["subject"][:60]))
            walls = [e["wall_seconds"] for e in done.values() if "wall_seconds" in e]
            left = sum(1 for e in commits if e["commit"] not in done)
            log("progress: %d of %d commits recorded, %d left (about %.1f h at %.0f s a run)" % (
                len(commits) - left, len(commits), left, left * sum(walls) / max(1, len(walls)) / 3600.0,
                sum(walls) / max(1, len(walls))))

    if args.phase in ("all", "mutants") and args.mutants_per_commit > 0:
        built_cpp = built_cpp_files(args, repo)
        mutants = [e for e in history["commits"] if e.get("kind") == "mutant"]
        # A test that fails at some real commits of the range and passes at others (flaky, or broken
        # for a while) failing on a mutant says nothing of the mutant: it kills nothing. Applied to the
        # mutants recorded before this rule too.
        unstable = unstable_tests(done.values())
        probes = state.setdefault("probes", {})
        drifted_at, passing_at, pool_classes = {}, {}, {}

        def covering_for(cand, real):
            """A narrowable candidate's covering tests at its real commit (covering_with_probe), or None."""
            narrow = covering_tests(args.store, cand)
            if narrow is None and cand.get("executed_at_commit"):
                narrow = set()  # added or renamed since the start: the probe alone says who runs it
            if narrow is None:
                return None
            drifted, probe = probed_drift(real)
            commit = real["commit"]
            if commit not in pool_classes:
                pool_classes[commit] = reused_pool_classes(repo, commit)
            covering = covering_with_probe(narrow, drifted, probe, cand)
            return with_pool_neighbours(covering, passing_at[commit], pool_classes[commit])

        def probed_drift(real):
            """(the tests whose start evidence drifted by the real commit and pass there, their probe),
            probing the commit once (raises DeadlineReached where no probe fits the time left)."""
            commit = real["commit"]
            if commit not in drifted_at:
                ids = set(r["id"] for r in real["results"])
                drift = code_drift(repo, state["evidence"]["commit"], commit, args.drift_paths.split(","))
                # a test that does not pass at the real commit cannot kill its mutants: not probed, not added
                passing_at[commit] = passing_ids(real["results"])
                drifted_at[commit] = ((drifted_tests(args.store, drift) | tests_without_evidence(args.store, ids))
                                      & passing_at[commit])
            drifted = drifted_at[commit]
            if commit not in probes:
                if not time_left(args.probe_minutes):
                    raise DeadlineReached("no time left for the probe of %s" % commit[:10])
                roots = args.mutate_paths.split(",")
                files = [f for f in real["changed_files"] if f.endswith(".py") and f.split("/")[0] in roots]
                log("probe of %s: %d test(s) whose start evidence drifted run under the plugin" %
                    (commit[:10], len(drifted)))
                probes[commit] = probe_commit(args, repo, real, drifted, files)
                save()
                log("probe of %s: %d test(s) in %.0f s" % (commit[:10], len(probes[commit]["outcomes"]),
                                                          probes[commit]["seconds"]))
            return drifted, probes[commit]
        # A test the mutant's run did not collect (its file failed to import) failed there: applied to the
        # mutants recorded before this rule too (their runs reported only what was collected).
        for m in mutants:
            real = done.get(m["mutant_of"])
            if real is None or "not_collected" in m:
                continue
            ran = m.get("tests_run", {}).get("ran_tests")
            if ran is None:
                ran = [r["id"] for r in m["results"] if not r.get("copied")]
            results, uncollected = add_uncollected(m["results"], real["results"],
                                                   expected_tests(args, m, real, lambda c: covering_for(c, real)), ran)
            m["not_collected"] = uncollected
            if uncollected:
                passed_real = passing_ids(real["results"])
                m["results"] = results
                m["counts"] = counts(results)
                m["killed_by"] = sorted(set(m["killed_by"]) | (set(uncollected) & passed_real))
                log("mutant %d: %d test(s) its run did not collect count as errors; killed by %d" %
                    (m["mutant_id"], len(uncollected), len(m["killed_by"])))
            save()
        for m in mutants:
            if drop_unstable_killers(m, unstable):
                log("mutant %d: %s no longer counted as killing it (fails at real commits too)" %
                    (m["mutant_id"], ", ".join(m["unstable_failures"])))
                save()
        # The shortcut checks recorded before the drift rule (every test ran) say what the rule misses:
        # their covering tests under it, probing their commits where needed.
        for m in sorted((m for m in mutants if "shortcut_check" in m and m["mutant_of"] in done
                         and m["shortcut_check"].get("rule") != DRIFT_RULE),
                        # those whose start evidence missed killers first: the ones the rule is for
                        key=lambda m: (-len(m["shortcut_check"]["killers_outside_covering"]), m["mutant_id"])):
            try:
                covering = covering_for(mutation_candidate(m), done[m["mutant_of"]])
            except DeadlineReached as stop:
                log("deadline near: %s; the checks wait, mutants of probed commits are completed" % stop)
                break
            check = m["shortcut_check"]
            check["rule"] = DRIFT_RULE
            check["covering_with_probe"] = sorted(covering or ())
            check["killers_outside_covering_with_probe"] = [k for k in m["killed_by"] if k not in (covering or ())]
            save()
            log("shortcut check of mutant %d under the drift rule: %d covering test(s), %d of its %d killer(s) "
                "outside them (%d outside the start evidence's)" % (
                    m["mutant_id"], len(check["covering_with_probe"]),
                    len(check["killers_outside_covering_with_probe"]), len(m["killed_by"]),
                    len(check["killers_outside_covering"])))
        # The mutants recorded before the drift rule ran only the tests whose start evidence executed the
        # mutated function: the covering tests they lack run now, on the same mutant commit; those of
        # probed commits first (no probe to wait for).
        pending = sorted((m for m in mutants if m.get("tests_run", {}).get("rule") == "covering"
                          and m["tests_run"].get("drift", {}).get("rule") not in (DRIFT_RULE, "every drifted test")
                          and m["mutant_of"] in done),
                         key=lambda m: (m["mutant_of"] not in probes, m["mutant_id"]))
        if pending:
            log("%d mutant(s) recorded under an earlier rule: running the covering tests they lack (%s)" %
                (len(pending), DRIFT_RULE))
        widen_started = time.time()
        for k, m in enumerate(pending):
            if not time_left():
                log("deadline reached; %d mutant(s) still to widen" % (len(pending) - k))
                save()
                return
            real = done[m["mutant_of"]]
            try:
                covering = covering_for(mutation_candidate(m), real)
            except DeadlineReached as stop:
                log("deadline reached: %s; %d mutant(s) still to widen" % (stop, len(pending) - k))
                save()
                return
            n = widen_mutant(args, repo, m, real, covering, unstable)
            save()
            per = (time.time() - widen_started) / (k + 1)
            log("mutant %d completed: %d more test(s), %.0f s in all, %d more killer(s) (killed by %d); %d of %d, "
                "about %.1f h left" % (m["mutant_id"], n, m["tests_run"]["drift"]["seconds"],
                                       len(m["tests_run"]["drift"]["killers_found"]), len(m["killed_by"]), k + 1,
                                       len(pending), per * (len(pending) - k - 1) / 3600.0))
        next_id = max([m["mutant_id"] for m in mutants] + [0]) + 1
        # commits whose changed code the start evidence saw executed (or that change compiled C++) first,
        # so that a short time budget still yields informative mutants; among those, commits with
        # mutants in executed functions (which run only their covering tests: minutes, not a quarter
        # of an hour) before those whose mutants all run the whole subset; each keeps its range order
        cand_cache = {}
        for entry in commits:
            if entry["commit"] in done:
                cand_cache[entry["commit"]] = mutant_candidates(args, repo, entry, executed_funcs, covered_files,
                                                                built_cpp)
        ranked = sorted(range(len(commits)), key=lambda j: mutant_commit_rank(cand_cache.get(commits[j]["commit"], []), j,
                                                                              commits[j]["commit"] in probes))
        for i in ranked:
            entry = commits[i]
            real = done.get(entry["commit"])
            if real is None:
                continue
            have = [m for m in mutants if m["mutant_of"] == entry["commit"]]
            tried = set((m["mutation"]["file"], m["mutation"]["line"], m["mutation"]["replacement"])
                        for m in have) | set(tuple(x) for x in state.get("invalid_mutants", {}).get(entry["commit"], []))
            need = args.mutants_per_commit - len(have)
            if need <= 0:
                continue
            rng = random.Random("%d:%s" % (args.seed, entry["commit"]))
            cands = cand_cache[entry["commit"]]
            if not any(c["executed"] for c in cands) and any(c["lang"] == "py" and c.get("function") for c in cands):
                # code the start evidence never ran (added since, or renamed): the commit's probe tells
                # which of its functions the tests run at that commit
                try:
                    drifted, probe = probed_drift(real)
                except DeadlineReached as stop:
                    log("deadline reached: %s" % stop)
                    save()
                    return
                found = mark_executed_at_commit(cands, drifted, probe)
                log("commit %s: the start evidence ran none of its changed lines; its probe ran %d candidate "
                    "line(s)" % (entry["commit"][:10], found))
            ordered = choose_mutants(cands, need, rng, unexecuted=args.mutate_unexecuted)
            passed_real = passing_ids(real["results"])
            not_built = set()
            rejected = 0
            for cand in ordered:
                if need <= 0:
                    break
                if cand["file"] in not_built:
                    continue
                if not time_left():
                    log("deadline reached; stopping mutants at %s" % entry["commit"][:10])
                    save()
                    return
                key = (cand["file"], cand["line"], cand["replacement"])
                if key in tried:
                    continue
                tried.add(key)
                number = next_id
                # --mutant-tests covering: only the tests that run the mutated function (covering_with_probe),
                # except for a random share of the mutants, which run everything to show what the shortcut misses
                narrow = covering_tests(args.store, cand) if args.mutant_tests == "covering" else None
                try:
                    covering = covering_for(cand, real) if narrow else None
                except DeadlineReached as stop:
                    log("deadline reached: %s" % stop)
                    save()
                    return
                sha = make_mutant(repo, entry, cand, number)
                t0 = time.time()
                check = (lambda since, f=cand["file"]: cpp_rebuilt(args, f, since)) if cand["lang"] == "cpp" else None
                full_check = (covering is not None and
                              random.Random("%d:check:%d" % (args.seed, number)).random() < args.full_suite_share)
                only = None if covering is None or full_check else covering
                results, info = run_subset(args, repo, "mutant-%03d-%s" % (number, sha[:12]), check_build=check,
                                           only=only)
                if info.get("not_built"):
                    log("mutant %d: %s:%d is not compiled by any extension at this commit; trying another" %
                        (number, cand["file"], cand["line"]))
                    state.setdefault("invalid_mutants", {}).setdefault(entry["commit"], []).append(list(key))
                    git(repo, "branch", "-D", "mutant/%d" % number, check=False)
                    not_built.add(cand["file"])
                    save()
                    continue
                if not info["prebuild_ok"] and cand["lang"] == "cpp":
                    log("mutant %d: %s:%d does not compile; trying another" % (number, cand["file"], cand["line"]))
                    state.setdefault("invalid_mutants", {}).setdefault(entry["commit"], []).append(list(key))
                    git(repo, "branch", "-D", "mutant/%d" % number, check=False)
                    rejected += 1
                    if rejected >= 3:
                        not_built.update(c["file"] for c in ordered if c["lang"] == "cpp")
                    save()
                    continue
                ran_ids = sorted(r["id"] for r in results)
                results, uncollected = add_uncollected(
                    results, real["results"], only if only is not None else set(r["id"] for r in real["results"]))
                killed = [r["id"] for r in results if r["outcome"] in ("failed", "error") and r["id"] in passed_real]
                unstable_failures = [k for k in killed if k in unstable]
                killed = [k for k in killed if k not in unstable]
                if only is not None:  # the tests not run keep the real commit's results
                    results = merge_with_real(results, real["results"])
                mutation = {k: cand[k] for k in ("file", "line", "operator", "original", "replacement", "lang")}
                mutation["executed_by_subset"] = cand["executed"] and not cand.get("executed_at_commit")
                if cand.get("executed_at_commit"):
                    mutation["executed_at_commit"] = True  # by the commit's probe, not the start evidence
                if cand.get("function"):
                    mutation["function"] = cand["function"]
                rec = {"kind": "mutant", "commit": sha, "base": entry["base"], "mutant_of": entry["commit"],
                       "mutant_id": number, "branch": "mutant/%d" % number, "subject": entry["subject"],
                       "mutation": mutation, "killed_by": killed, "results": results,
                       "unstable_failures": unstable_failures,
                       "wall_seconds": round(time.time() - t0, 1), "counts": counts(results), "machine": machine}
                if only is not None:
                    rec["tests_run"] = {"rule": "covering", "ran": len(ran_ids), "ran_tests": ran_ids,
                                        "reason": covering_reason(cand),
                                        "drift": {"added": len(covering - narrow), "left": len(narrow - covering),
                                                  "recorded": "with the mutant", "rule": DRIFT_RULE}}
                else:
                    rec["tests_run"] = {"rule": "all", "ran": len(ran_ids),
                                        "reason": whole_run_reason(args, cand, full_check)}
                if full_check:
                    # "covering": the start evidence's tests (as in the checks recorded before the drift rule)
                    rec["shortcut_check"] = {"covering": sorted(narrow),
                                             "killers_outside_covering": [k for k in killed if k not in narrow],
                                             "rule": DRIFT_RULE, "covering_with_probe": sorted(covering),
                                             "killers_outside_covering_with_probe": [k for k in killed if k not in covering]}
                if info["hangs"]:
                    rec["hangs"] = info["hangs"]
                if uncollected:
                    rec["not_collected"] = uncollected
                if not info["prebuild_ok"]:
                    rec["prebuild_failed"] = True
                history["commits"].append(rec)
                mutants.append(rec)
                next_id += 1
                need -= 1
                save()
                log("mutant %d of %s (%s %s %s:%d): killed by %d, ran %d test(s) (%s), %s in %.0f s%s" % (
                    number, entry["commit"][:10], cand["lang"], cand["operator"], cand["file"], cand["line"],
                    len(killed), len(ran_ids), rec["tests_run"]["rule"], fmt_counts(rec["counts"]),
                    rec["wall_seconds"], "; shortcut check: %d killer(s) outside the %d covering test(s)" % (
                        len(rec["shortcut_check"]["killers_outside_covering_with_probe"]), len(covering))
                    if full_check else ""))
            if need > 0:
                log("commit %s: %d mutant(s) short (no more candidates)" % (entry["commit"][:10], need))
    save()
    log("done in %.0f s" % (time.time() - started))


def cpp_rebuilt(args, path, since):
    """Whether the pre-build compiled an extension that holds the C++ file path (or a file of its folder,
    for headers) after time since."""
    folder = os.path.dirname(path) + "/"
    for name in os.listdir(args.extensions_dir):
        d = os.path.join(args.extensions_dir, name)
        ninja, log_file = os.path.join(d, "build.ninja"), os.path.join(d, ".ninja_log")
        if not (os.path.exists(ninja) and os.path.exists(log_file)):
            continue
        with open(ninja, encoding="utf-8") as fh:
            text = fh.read()
        mentions = ("/" + path) in text or ("/" + folder) in text or path.startswith("csrc/includes/")
        if mentions and os.path.getmtime(log_file) >= since:
            return True
    return False


def refresh_touch_info(args, repo, done, state, executed_funcs, covered_files, save):
    """Recomputes the touch summary of commits recorded against another start evidence (--redo-evidence)."""
    current = (state.get("evidence") or {}).get("recorded_at")
    stale = [e for e in done.values() if e.get("touch_evidence") != current]
    if not stale or not state.get("evidence"):
        return
    for rec in stale:
        rec.update(touch_info(repo, rec, executed_funcs, covered_files, args.touch_paths.split(",")))
        rec["touch_evidence"] = current
    log("touch summaries of %d recorded commits recomputed against the start evidence of %s" % (len(stale), current))
    save()


def touch_info(repo, entry, executed_funcs, covered_files, paths=None):
    """Which changed functions/files (under paths, DeepSpeed's code folders by default) of the commit the
    start evidence saw executed."""
    changed = changed_lines(repo, entry["commit"], entry["base"], paths or DEFAULT_TOUCH_PATHS.split(","))
    funcs, files = set(), set()
    for path, lines in changed.items():
        if not path.endswith(".py"):
            continue
        if path in covered_files or path_alias(path) in covered_files:
            files.add(path)
        try:
            fs = enclosing_functions(git(repo, "show", "%s:%s" % (entry["commit"], path)))
        except (SyntaxError, RuntimeError):
            continue
        for ln in lines:
            q = innermost_function(fs, ln)
            if q:
                if any("%s::%s" % (p, q) in executed_funcs for p in (path, path_alias(path))):
                    funcs.add("%s::%s" % (path, q))
    return {"executed_changed_functions": sorted(funcs), "executed_changed_files": sorted(files),
            "changed_files": sorted(changed)}


if __name__ == "__main__":
    main()
