#!/usr/bin/env python3
"""Records what pytest-testmon selects at every entry of a history recorded by record_deepspeed_history.py,
run as its users run it, so that `fastci replay --strategy pytest-testmon` replays the real tool beside fastci.

Usage: scripts/record_testmon.py --history DIR/history.json --python VENV/bin/python --out OUT
                                 [--shims SHIMS] [--deadline-minutes M]
                                 [--tests-file IDS [--ids-under DIR]] [--config FILE] [--prebuild-ops LIST]
                                 [--env NAME=VALUE ...]

Without --tests-file the subset is the recorder's DeepSpeed default (paths and a -k expression) with
DeepSpeed's tests/pytest.ini; with it, the history's own list of test ids (the recorder's --select-by-id),
relative to --ids-under (a folder of the repository, `.` by default; DeepSpeed's lists are relative to
`tests`), and --config '' leaves pytest to find the repository's own configuration (pyproject.toml).

DIR/history.json is an unpacked history (scripts/history_pack.py unpack); its repository is cloned
(shared, sparse) into OUT/repo. --python is an interpreter with the history's test environment and
pytest-testmon installed (a venv with --system-site-packages over the recording interpreter). The run:

1. the test subset of scripts/record_deepspeed_history.py at the base of the first commit with
   `--testmon` and an empty database: every test runs and testmon records its fingerprints (the same
   first run as fastci's start evidence);
2. then, for each real commit in order: every mutant of that commit against a copy of the database as it
   was before the commit (`--collect-only`: what testmon would have run; a mutant is planned against its
   real commit's base, as replay plans it), then the commit itself with `--testmon`, which runs the tests
   testmon selects and updates the database, as a developer's or CI's next run would.

pytest runs from the repository root with `--rootdir` there and DeepSpeed's tests/pytest.ini, so that
testmon fingerprints deepspeed/ as well as tests/ (run from tests/, as pytest.ini would put its rootdir,
testmon would see no change outside tests/), and with `--testmon-forceselect`: testmon turns its selection
off when the command line names tests (the subset does: `file.py::Class`) or gives -k or -m (DeepSpeed's
pytest.ini adds -m), and that option is its own way to keep selecting. The subset's -k expression is
replaced by a --deselect of each test it left out of the history, so that the collection is the history's. Resumable: OUT/testmon.json (the selections, keyed by the
recorded commit id, in the form history_pack.py unpack merges into "selections") and the database after
each commit (OUT/db/) are written after every run. Progress goes to stderr, one line per run.
"""

import argparse
import contextlib
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_deepspeed_history as rec  # noqa: E402  (one runner of the subset: hangs, restarts, reports)


def subset_paths(tests_subdir):
    """The recorder's subset paths, relative to the repository root, without its -k expression: the
    tests it leaves out are deselected by id instead (write_subset), so the collection is the history's
    whatever testmon makes of -k."""
    out = []
    words = rec.test_args(argparse.Namespace(tests_file=None))
    for i, w in enumerate(words):
        if w == "-k" or (i and words[i - 1] == "-k"):
            continue
        out.append(w if w.startswith("-") else tests_subdir + "/" + w)
    return out


def write_subset(a, repo, recorded):
    """OUT/tools/subset.txt: the subset's paths and a --deselect for each test they collect at the
    first base that the history does not hold (those the recorder's -k left out)."""
    paths = subset_paths("tests")
    with open(a.tests_file, "w", encoding="utf-8") as fh:
        fh.write("\n".join(shlex.quote(w) for w in paths) + "\n")
    collected = testmon_collect(a, repo, "collect-subset", None)
    extra = [t for t in collected if t not in recorded]
    with open(a.tests_file, "a", encoding="utf-8") as fh:
        for t in extra:
            fh.write("--deselect %s\n" % shlex.quote(t))
    rec.log("subset: %d paths, %d tests collected, %d deselected (not in the history)" %
            (len(paths), len(collected), len(extra)))


def write_id_subset(a):
    """OUT/tools/subset.txt from --tests-file: its ids made relative to the repository root, where pytest runs."""
    under = a.ids_under.strip("/")
    with open(a.ids_file, encoding="utf-8") as src, open(a.tests_file, "w", encoding="utf-8") as dst:
        for line in src:
            line = line.strip()
            if line and not line.startswith("#"):
                dst.write((line if under in ("", ".") else under + "/" + line) + "\n")


def runner_args(a, prebuild=True):
    """The fields rec.run_subset reads, with the repository root as the tests folder."""
    return argparse.Namespace(out=a.out, tests_subdir=".", tests_file=a.tests_file, select_by_id=bool(a.ids_file),
                              env=a.env, fastci_scripts=os.path.join(a.out, "tools"), local_size=4,
                              extensions_dir=a.extensions_dir, test_timeout=90, shims=a.shims, nice=5,
                              python=a.python, prebuild_ops=a.prebuild_ops if prebuild else "",
                              build_timeout=900, run_timeout=1800,
                              # testmon reads pytest's --lf option and fails without the cache plugin
                              # (KeyError 'lf'): its cache goes to OUT, not into the work tree
                              cache_dir=os.path.join(a.out, "pytest-cache"))


def testmon_args(a, repo, testmon=True):
    # --testmon-forceselect: testmon turns its selection off when the command line names tests
    # (file.py::Class), a -k or a -m expression (DeepSpeed's pytest.ini adds one); this option is
    # testmon's own way to select "only tests affected by changes and satisfying pytest selectors".
    config = ["-c", os.path.join(repo, a.config)] if a.config else []
    return config + ["--rootdir", repo] + (["--testmon-forceselect"] if testmon else [])


def collected_ids(report, label, a):
    events = rec.read_events(report)
    collected = next((ev["tests"] for ev in events if ev["event"] == "collected"), None)
    if collected is None:
        sys.exit("%s: pytest collected nothing (see %s)" % (label, os.path.join(a.out, "runs", label, "output.log")))
    return [t for t, _ in collected]


def testmon_run(a, repo, label, db):
    """Runs what testmon selects, updating db; returns the selected test ids."""
    rec.run_subset(runner_args(a), repo, label, plugin_args=testmon_args(a, repo), env_extra={"TESTMON_DATAFILE": db})
    return collected_ids(os.path.join(a.out, "runs", label, "report-1.jsonl"), label, a)


def testmon_collect(a, repo, label, db):
    """What testmon would run against db, without running it (no build: collection imports Python only)."""
    args = runner_args(a, prebuild=False)
    rundir = os.path.join(a.out, "runs", label)
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    env = rec.base_env(args, repo)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(a.out, "tools"), env["PYTHONPATH"]])
    env["DS_HISTORY_PREFIX"] = ""
    env["DS_HISTORY_REPORT"] = os.path.join(rundir, "report-1.jsonl")
    if db is not None:  # else the plain collection of the subset
        env["TESTMON_DATAFILE"] = db
    selection = rec.test_args(args)
    if args.select_by_id:
        selection, _ = rec.id_selection(selection, repo, "", rundir)
        env["DS_HISTORY_SELECT"] = os.path.join(rundir, "selected-ids.txt")
    cmd = rec.pytest_cmd(args, testmon_args(a, repo, db is not None) + ["--collect-only"] + selection)
    rec.run_group(cmd, repo, env, 600, os.path.join(rundir, "output.log"))
    return collected_ids(env["DS_HISTORY_REPORT"], label, a)


def remove_db(path):
    """A SQLite database and the write-ahead log and shared-memory files beside it."""
    for name in (path, path + "-wal", path + "-shm", path + "-journal"):
        if os.path.exists(name):
            os.remove(name)


def copy_db(src, dst):
    """Copies testmon's database through SQLite's backup API: testmon keeps it in WAL mode, and a process that
    ends without closing it leaves its content in SRC-wal, which a copy of the main file alone would lose
    (the copy would read as an empty database and testmon would select everything)."""
    remove_db(dst)
    with contextlib.closing(sqlite3.connect(src)) as source, contextlib.closing(sqlite3.connect(dst)) as dest:
        source.backup(dest)


def fetch_missing(repo, source, shas):
    """Fetches into the clone the history's commits it lacks: it was cloned from the history as it was
    when recording began, and mutants recorded since live only in the history's repository."""
    # one question for all of them: a history holds hundreds of commits and mutants
    answers = subprocess.run(["git", "-C", repo, "cat-file", "--batch-check=%(objecttype)"], check=True,
                             input="".join(sha + "\n" for sha in shas), capture_output=True, text=True).stdout
    missing = [sha for sha, kind in zip(shas, answers.splitlines()) if kind != "commit"]
    if missing:
        rec.git(repo, "fetch", "-q", source, *missing)
    return missing


def testmon_version(python):
    return subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('pytest-testmon'))"],
                          check=True, capture_output=True, text=True).stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--history", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--shims", help="folder of stand-in modules put first on PYTHONPATH (DeepSpeed's histories)")
    ap.add_argument("--tests-file", dest="ids_file", help="the history's test ids, one a line (--select-by-id)")
    ap.add_argument("--ids-under", default=".", help="folder of the repository the ids of --tests-file are relative to")
    ap.add_argument("--config", default=os.path.join("tests", "pytest.ini"),
                    help="pytest configuration file, relative to the repository ('' for pytest's own search)")
    ap.add_argument("--prebuild-ops", default=rec.DEFAULT_PREBUILD_OPS, help="DeepSpeed ops built before each run")
    ap.add_argument("--env", action="append", type=rec.env_pair, default=[], metavar="NAME=VALUE",
                    help="set in every run's environment; {repo} is replaced by the checkout")
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline-minutes", type=float, default=0)
    a = ap.parse_args()
    a.out = os.path.abspath(a.out)
    a.shims = os.path.abspath(a.shims) if a.shims else None
    a.extensions_dir = os.path.join(a.out, "torch-extensions")
    os.makedirs(os.path.join(a.out, "db"), exist_ok=True)
    os.makedirs(os.path.join(a.out, "tools"), exist_ok=True)
    with open(os.path.join(a.out, "tools", "ds_history_report.py"), "w", encoding="utf-8") as fh:
        fh.write(rec.REPORTER_PLUGIN)
    a.tests_file = os.path.join(a.out, "tools", "subset.txt")
    started = time.time()
    version = testmon_version(a.python)

    with open(a.history, encoding="utf-8") as fh:
        history = json.load(fh)
    source = history["repository"]
    if not os.path.isabs(source):
        source = os.path.join(os.path.dirname(os.path.abspath(a.history)), source)
    repo = os.path.join(a.out, "repo")
    if not os.path.isdir(repo):
        rec.git(a.out, "clone", "-q", "--no-checkout", "--shared", source, repo)
        rec.git(repo, "sparse-checkout", "set", "--no-cone", "/*", "!/blogs/")
    fetched = fetch_missing(repo, source, sorted({e["commit"] for e in history["commits"]} |
                                                 {e["base"] for e in history["commits"] if e.get("base")}))
    if fetched:
        rec.log("fetched %d commit(s) the clone lacked from %s" % (len(fetched), source))

    done_path = os.path.join(a.out, "testmon.json")
    done = {}
    if os.path.exists(done_path):
        with open(done_path, encoding="utf-8") as fh:
            done = json.load(fh)

    def save():
        tmp = done_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(done, fh, indent=1, sort_keys=True)
        os.replace(tmp, done_path)

    def snapshot(sha):
        return os.path.join(a.out, "db", sha[:12] + ".testmondata")

    live = os.path.join(a.out, "testmondata")
    entries = history["commits"]
    real = [e for e in entries if e.get("kind", "commit") != "mutant"]
    first_base = real[0]["base"]
    if a.ids_file and not os.path.exists(a.tests_file):
        write_id_subset(a)
    elif not os.path.exists(a.tests_file):
        rec.checkout(repo, first_base)
        write_subset(a, repo, {r["id"] for r in real[0]["results"]})
    if not os.path.exists(snapshot(first_base)):
        rec.checkout(repo, first_base)
        remove_db(live)
        t0 = time.time()
        tests = testmon_run(a, repo, "start-" + first_base[:12], live)
        copy_db(live, snapshot(first_base))
        rec.log("start %s: %d tests ran under testmon in %.0f s" % (first_base[:10], len(tests), time.time() - t0))
        # The database must have kept the run: at the same commit testmon selects nothing (a test that
        # failed at the start would be selected again: the history's first base has none).
        scratch = os.path.join(a.out, "check.testmondata")
        copy_db(snapshot(first_base), scratch)
        again = testmon_collect(a, repo, "check-" + first_base[:12], scratch)
        remove_db(scratch)
        if again:
            remove_db(snapshot(first_base))
            sys.exit("testmon selects %d tests again at %s right after running them: its database did not keep "
                     "the run (see %s)" % (len(again), first_base[:10], os.path.join(a.out, "runs")))

    for i, entry in enumerate(real):
        key = entry.get("recorded_commit", entry["commit"])
        # The database as the previous recorded commit's run left it (a commit's parent is not always
        # recorded: the history keeps the commits touching its paths).
        before = snapshot(real[i - 1]["commit"] if i else first_base)
        mutants = [e for e in entries if e.get("mutant_of") == entry["commit"]]
        for m in mutants:
            mkey = m.get("recorded_commit", m["commit"])
            if mkey in done:
                continue
            if a.deadline_minutes and time.time() - started > a.deadline_minutes * 60:
                rec.log("deadline reached")
                return
            rec.checkout(repo, m["commit"])
            scratch = os.path.join(a.out, "mutant.testmondata")
            copy_db(before, scratch)
            tests = testmon_collect(a, repo, "mutant-" + m["commit"][:12], scratch)
            remove_db(scratch)
            done[mkey] = {"mode": "selected", "targets": tests,
                          "reason": "pytest-testmon %s: %d test(s) affected" % (version, len(tests))}
            save()
            rec.log("mutant %s of %s: testmon selects %d" % (m["commit"][:10], entry["commit"][:10], len(tests)))
        if key in done and os.path.exists(snapshot(entry["commit"])):
            continue
        if a.deadline_minutes and time.time() - started > a.deadline_minutes * 60:
            rec.log("deadline reached")
            return
        rec.checkout(repo, entry["commit"])
        copy_db(before, live)
        t0 = time.time()
        tests = testmon_run(a, repo, "commit-" + entry["commit"][:12], live)
        copy_db(live, snapshot(entry["commit"]))
        done[key] = {"mode": "selected", "targets": tests,
                     "reason": "pytest-testmon %s: %d test(s) affected" % (version, len(tests))}
        save()
        rec.log("commit %d/%d %s: testmon ran %d of the subset in %.0f s" %
                (i + 1, len(real), entry["commit"][:10], len(tests), time.time() - t0))


if __name__ == "__main__":
    main()
