#!/usr/bin/env python3
"""Records what DeepSpeed's own test selector (ci/tests_fetcher.py) chooses at every entry of a history,
so that `fastci replay --strategy tests-fetcher` replays the real tool beside fastci.

Usage: scripts/record_tests_fetcher.py --history DIR/history.json --tests-fetcher tests_fetcher.py
                                       [--scope tests/unit] --out PACK/baselines/tests-fetcher.json

DIR/history.json is an unpacked history (scripts/history_pack.py unpack): its repository holds the
real and the mutant commits. Each real commit is run against its base, each mutant against its real
commit's base (as replay plans them). --tests-fetcher is a copy of ci/tests_fetcher.py, e.g. from
DeepSpeed's current master (`git show origin/master:ci/tests_fetcher.py`); --scope replaces its test
scope (the shipped `tests/unit/v1` is newer than older commits; say so where the numbers are used).
Entries already in --out are kept (a history grown by mutants runs only its new ones); --redo runs all.
The output maps each entry's recorded commit id to {"mode": "all"|"selected", "targets", "reason"},
the form history_pack.py unpack merges into the history's "selections".
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from static_selection_commits import tests_fetcher  # noqa: E402  (one runner of the selector)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--history", required=True)
    ap.add_argument("--tests-fetcher", required=True)
    ap.add_argument("--scope")
    ap.add_argument("--out", required=True)
    ap.add_argument("--redo", action="store_true", help="run every entry again, not only those --out lacks")
    args = ap.parse_args()
    with open(args.history, encoding="utf-8") as fh:
        history = json.load(fh)
    repo = history["repository"]
    if not os.path.isabs(repo):
        repo = os.path.join(os.path.dirname(os.path.abspath(args.history)), repo)
    scratch = tempfile.mkdtemp(prefix="fastci-tests-fetcher-")
    # Entries already in --out (a history that grew: new mutants) keep their selection; --redo runs all.
    recorded = {}
    if os.path.exists(args.out) and not args.redo:
        with open(args.out, encoding="utf-8") as fh:
            recorded = json.load(fh)
    kept = len(recorded)
    entries = [e for e in history["commits"] if e.get("recorded_commit", e["commit"]) not in recorded]
    try:
        for i, entry in enumerate(entries):
            base = entry.get("base") or entry["commit"] + "~1"
            result = tests_fetcher(args.tests_fetcher, args.scope, repo, entry["commit"], scratch, base=base)
            if "error" in result:
                sys.exit("tests_fetcher failed at %s: %s" % (entry["commit"], result["error"]))
            selection = {"mode": "all" if result["mode"] == "all" else "selected", "targets": result["targets"],
                         "reason": result["reason"]}
            if selection["mode"] == "all":
                selection["targets"] = []
            recorded[entry.get("recorded_commit", entry["commit"])] = selection
            if sys.stderr.isatty():
                sys.stderr.write("\r%d/%d %s %s" % (i + 1, len(entries), entry["commit"][:10], selection["mode"]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(recorded, fh, indent=1, sort_keys=True)
    modes = [s["mode"] for s in recorded.values()]
    print("%s: %d entries (%d run now), %d run everything, %d select" % (
        args.out, len(recorded), len(recorded) - kept, modes.count("all"), modes.count("selected")))


if __name__ == "__main__":
    main()
