#!/usr/bin/env python3
"""Plans chosen commits of a recorded history (docs/replay.md) with fastci-analyze and checks each plan
against the recorded run of every test at that commit: selected / pruned / skipped counts, the head of
the order, and whether every test that failed there is in the plan (new failures apart from tests that
were already failing at the commit's base).

Usage: scripts/plan_history_commits.py --history HISTORY.json [--analyze PATH] [--state-dir DIR]
       [--top N] COMMIT [COMMIT ...]      (COMMIT: a prefix of a commit id in the history)
Prints a Markdown table, then one line per commit with the first N tests of each plan.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def failing(results):
    return {r["id"] for r in results if r["outcome"] in ("failed", "error")}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--history", required=True)
    parser.add_argument("--analyze", default=os.path.join(HERE, "..", "build", "cli", "fastci-analyze"))
    parser.add_argument("--state-dir", default=None)
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("commits", nargs="+")
    args = parser.parse_args()
    with open(args.history, encoding="utf-8") as handle:
        history = json.load(handle)
    folder = os.path.dirname(os.path.abspath(args.history))
    repository = os.path.join(folder, history["repository"])
    store = history.get("evidence_store", "")
    if store and "://" not in store:
        store = "sqlite://" + os.path.join(folder, store)
    real = [c for c in history["commits"] if c.get("kind") != "mutant"]
    by_commit = {c["commit"]: c for c in real}
    rows, orders = [], []
    for prefix in args.commits:
        matches = [c for c in real if c["commit"].startswith(prefix)]
        if len(matches) != 1:
            sys.exit("%s: %d commits of the history start with it" % (prefix, len(matches)))
        commit = matches[0]
        with tempfile.TemporaryDirectory() as scratch:
            plan_file = os.path.join(scratch, "plan.json")
            command = [args.analyze, "--repo", repository, "--base", commit["base"], "--head", commit["commit"],
                       "--out", plan_file, "-q"]
            if store:
                command += ["--evidence", store]
            if args.state_dir:
                command += ["--state-dir", args.state_dir]
            subprocess.run(command, check=True)
            with open(plan_file, encoding="utf-8") as handle:
                plan = json.load(handle)
        recorded = {r["id"] for r in commit["results"]}
        planned = []
        for test in plan["tests"]:
            # a function whose parameters are computed at run time: pytest runs all of its recorded ids
            expanded = [r for r in sorted(recorded) if r.startswith(test["id"] + "[")]
            planned += expanded if test["id"] not in recorded and "[" not in test["id"] and expanded else [test["id"]]
        # already failing: the base's recorded run, else the last real commit before it in the history
        index = real.index(commit)
        if commit["base"] in by_commit:
            before = failing(by_commit[commit["base"]]["results"])
        else:
            before = failing(real[index - 1]["results"]) if index > 0 else set()
        failed = failing(commit["results"])
        new = failed - before
        summary = plan["summary"]
        rows.append("| `%s` %s | %d | %d | %d | %d of %d | %s | %s |" % (
            commit["commit"][:9], commit.get("subject", "")[:60].replace("|", "/"), summary["selected"],
            summary["pruned"], summary["skipped"], len(recorded & set(planned)), len(recorded),
            "%d, all in the plan" % len(new) if new <= set(planned) else
            "%d, %d missing: %s" % (len(new), len(new - set(planned)), ", ".join(sorted(new - set(planned)))),
            "%d (%d in the plan)" % (len(failed & before), len(failed & before & set(planned)))))
        orders.append("- `%s`: %s" % (commit["commit"][:9], ", ".join("`%s`" % t for t in planned[:args.top]) or "-"))
    print("| commit | selected | pruned | skipped | recorded tests planned | new failures | already failing |")
    print("|---|---:|---:|---:|---:|---|---|")
    print("\n".join(rows))
    print("\nFirst tests of each plan, in order:\n")
    print("\n".join(orders))


if __name__ == "__main__":
    main()
