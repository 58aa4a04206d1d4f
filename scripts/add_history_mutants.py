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
import subprocess
import sys
import time


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout.strip()


def run_tests(history_dir, worktree, history, args, report):
    test_arguments = history["test_command"].split("-rA ", 1)[1]
    env = dict(os.environ, LOCAL_SIZE=str(args.local_size), TORCH_EXTENSIONS_DIR=args.extensions,
               DS_UNITTEST_TIMEOUT=str(args.test_timeout), DS_HISTORY_REPORT=report, DS_HISTORY_PREFIX="tests/",
               # DeepSpeed picks rendezvous ports from 29500 + 1000 x this number: apart from other runs
               PYTEST_XDIST_WORKER="gw%d" % args.port_slot,
               PYTHONPATH=os.pathsep.join([os.path.join(history_dir, "tools"), args.shims, ".."]))
    command = "nice -n 5 %s -m pytest -p no:cacheprovider -p ds_history_report -q %s" % (args.python, test_arguments)
    subprocess.run(command, shell=True, cwd=os.path.join(worktree, "tests"), env=env, capture_output=True,
                   timeout=args.run_timeout)
    results, gpus = [], {}
    with open(report, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record["event"] == "collected":
                gpus = dict(record["tests"])
            elif record["event"] == "result":
                results.append({"id": record["id"], "outcome": record["outcome"], "seconds": record["seconds"],
                                "gpus": gpus.get(record["id"], 1)})
    return results


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
                   spec["original"] in c["mutation"]["original"]]
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
        git(worktree, "-c", "user.name=fastci", "-c", "user.email=fastci@example.org", "commit", "-qam",
            "mutant: %s in %s:%d" % (spec["operator"], spec["file"], line))
        mutant = git(worktree, "rev-parse", "HEAD")
        git(repo, "update-ref", "refs/heads/mutant-extra/" + mutant[:10], mutant)
        report = os.path.join(history_dir, "runs", "extra-mutant-%s.jsonl" % mutant[:10])
        os.makedirs(os.path.dirname(report), exist_ok=True)
        if os.path.exists(report):
            os.remove(report)
        start = time.time()
        results = run_tests(history_dir, worktree, history, args, report)
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
        sys.stderr.write("%s %s:%d: killed by %d in %.0f s\n" % (commit["commit"][:10], spec["file"], line,
                                                                 len(killed), time.time() - start))


if __name__ == "__main__":
    main()
