#!/usr/bin/env python3
"""Adds chosen mutation faults to a history recorded by record_deepspeed_history.py: each one replaces
text on one line of a real commit's changed code, is committed on top of that commit in the history's
repository (refs/heads/mutant-extra/<id>), and the history's test command runs on it; `killed_by` are the
tests that fail there and passed on the real commit. Entries have the history's mutant form and go right
after their real commit.

Usage: scripts/add_history_mutants.py --history OUT/history.json --shims DIR --extensions DIR SPEC.json
SPEC.json: [{"commit": "9f0e21363", "file": "deepspeed/runtime/utils.py", "line": 417,
             "operator": "operator", "original": "max_norm / (total", "replacement": "max_norm * (total"}, ...]
("line" may be omitted: the first line holding "original" is taken.)
"""

import argparse
import json
import os
import py_compile
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout.strip()


def run_tests(history_dir, worktree, history, args, extensions, label):
    """The history's test command on the work tree, run as the recorder ran every real commit
    (record_deepspeed_history.run_subset): its watchdog kills a test with no result DS_UNITTEST_TIMEOUT + 30 s
    after it started, runs it once more, counts a second hang as failed ("hang") and runs the remaining
    tests in a fresh pytest; the op builders of --prebuild are built into `extensions` first."""
    import record_deepspeed_history as recorder
    test_arguments = shlex.split(history["test_command"].split("-rA ", 1)[1])
    tests_file = os.path.join(history_dir, "tools", "history-tests.txt")
    os.makedirs(os.path.dirname(tests_file), exist_ok=True)
    with open(tests_file, "w", encoding="utf-8") as handle:
        handle.write("\n".join(shlex.quote(w) for w in test_arguments) + "\n")
    ns = argparse.Namespace(out=history_dir, tests_subdir="tests", tests_file=tests_file, fastci_scripts=None,
                            local_size=args.local_size, extensions_dir=extensions, test_timeout=args.test_timeout,
                            shims=args.shims, nice=5, python=args.python, prebuild_ops=args.prebuild or "",
                            build_timeout=args.run_timeout, run_timeout=args.run_timeout)
    # DeepSpeed picks rendezvous ports from 29500 + 1000 x this number: apart from other runs
    results, info = recorder.run_subset(ns, worktree, label, env_extra={"PYTEST_XDIST_WORKER": "gw%d" % args.port_slot})
    if not info["prebuild_ok"]:
        sys.exit("%s: the op builders failed (see %s)" % (label, os.path.join(history_dir, "runs", label, "output.log")))
    return results, info


def commit_one_file(worktree, parent, path, message):
    """Commits the work tree's copy of one file on top of parent through a temporary index read from
    parent's tree, so that a sparse work tree over a clone lacking blobs outside the sparse set (a
    mirror without blogs/ media) commits only that file."""
    blob = git(worktree, "hash-object", "-w", path)
    index = os.path.join(os.path.dirname(os.path.abspath(worktree)), "mutant.index")
    env = dict(os.environ, GIT_INDEX_FILE=index, GIT_AUTHOR_NAME="fastci", GIT_AUTHOR_EMAIL="fastci@example.org",
               GIT_COMMITTER_NAME="fastci", GIT_COMMITTER_EMAIL="fastci@example.org")

    def plumbing(*args):
        return subprocess.run(["git", "-C", worktree, *args], env=env, capture_output=True, text=True,
                              check=True).stdout.strip()

    try:
        plumbing("read-tree", parent)
        plumbing("update-index", "--cacheinfo", "100644,%s,%s" % (blob, path))
        tree = plumbing("write-tree")
        return plumbing("commit-tree", tree, "-p", parent, "-m", message)
    finally:
        if os.path.exists(index):
            os.remove(index)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--history", required=True)
    parser.add_argument("--shims", required=True)
    parser.add_argument("--extensions", required=True, help="TORCH_EXTENSIONS_DIR")
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--local-size", type=int, default=4)
    parser.add_argument("--test-timeout", type=int, default=90)
    parser.add_argument("--run-timeout", type=int, default=900)
    parser.add_argument("--port-slot", type=int, default=7)
    parser.add_argument("--prebuild", metavar="BUILDERS",
                        help="op builders (e.g. CPUAdamBuilder,ShareMemCommBuilder) JIT-built from the mutant's tree "
                        "before its tests; a C/C++ mutant's into a fresh folder below --extensions, since torch's JIT "
                        "cache key covers an extension's sources, not the headers they include")
    parser.add_argument("spec")
    args = parser.parse_args()
    history_dir = os.path.dirname(os.path.abspath(args.history))
    with open(args.history, encoding="utf-8") as handle:
        history = json.load(handle)
    with open(args.spec, encoding="utf-8") as handle:
        specs = json.load(handle)
    repo = os.path.join(history_dir, history["repository"])
    worktree = os.path.join(history_dir, "mutant-worktree")
    if not os.path.exists(worktree):
        git(repo, "worktree", "add", "--detach", worktree, "HEAD")
    real = [c for c in history["commits"] if c.get("kind") != "mutant"]
    for spec in specs:
        commit = next(c for c in real if c["commit"].startswith(spec["commit"]))
        present = [c for c in history["commits"] if c.get("mutant_of") == commit["commit"] and
                   c["mutation"]["file"] == spec["file"] and c["mutation"].get("original") and
                   spec["original"] in c["mutation"]["original"] and
                   spec["replacement"] in c["mutation"].get("replacement", spec["replacement"])]
        if present:
            continue
        git(worktree, "checkout", "-q", "--force", commit["commit"])
        path = os.path.join(worktree, spec["file"])
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        line = spec.get("line") or next(i + 1 for i, text in enumerate(lines) if spec["original"] in text)
        if spec["original"] not in lines[line - 1]:
            sys.exit("%s:%d does not hold %r at %s" % (spec["file"], line, spec["original"], commit["commit"][:10]))
        before = lines[line - 1].strip()
        lines[line - 1] = lines[line - 1].replace(spec["original"], spec["replacement"], 1)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines))
        if path.endswith(".py"):
            py_compile.compile(path, doraise=True)
        mutant = commit_one_file(worktree, commit["commit"], spec["file"],
                                 "mutant: %s in %s:%d" % (spec["operator"], spec["file"], line))
        git(worktree, "checkout", "-q", "--force", mutant)
        git(repo, "update-ref", "refs/heads/mutant-extra/" + mutant[:10], mutant)
        extensions = args.extensions
        if args.prebuild and not path.endswith(".py"):
            extensions = os.path.join(args.extensions, "mutant-" + mutant[:10])
        start = time.time()
        results, info = run_tests(history_dir, worktree, history, args, extensions, "extra-mutant-" + mutant[:10])
        passed_before = {r["id"] for r in commit["results"] if r["outcome"] in ("passed", "skipped")}
        killed = sorted(r["id"] for r in results if r["outcome"] in ("failed", "error") and r["id"] in passed_before)
        entry = {"kind": "mutant", "commit": mutant, "base": commit["base"], "mutant_of": commit["commit"],
                 "mutation": {"file": spec["file"], "line": line, "operator": spec["operator"], "original": before,
                              "replacement": lines[line - 1].strip()},
                 "killed_by": killed, "results": results}
        position = max(i for i, c in enumerate(history["commits"])
                       if c["commit"] == commit["commit"] or c.get("mutant_of") == commit["commit"])
        history["commits"].insert(position + 1, entry)
        with open(args.history + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(history, handle, indent=1)
        os.replace(args.history + ".tmp", args.history)
        sys.stderr.write("%s %s:%d: killed by %d in %.0f s (hangs: %s)\n" % (
            commit["commit"][:10], spec["file"], line, len(killed), time.time() - start, info["hangs"]))


if __name__ == "__main__":
    main()
