#!/usr/bin/env python3
"""Checks, on a repository's real history, that plans made from the base's linked facts with lines
moved (`summary.analysis.linked_from_base`) are the plans a full link gives.

For each first-parent commit C of the range (oldest first), two state directories:
  chained: C~1..C right after C~1 was analysed (the base is in the cache: the shortcut may apply);
  linked:  C..C first (C's tree linked in full and cached), then C~1..C (that linked tree is used).
The two plans must be identical but for `summary.analysis` (timings, what was parsed or reused).

Usage:
  scripts/check_linked_from_base.py --repo CLONE --analyze BUILD/cli/fastci-analyze [--count N] [REV]
Prints one line per commit and a summary; exits 1 on any difference.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile


def analyze(binary, repo, state, base, head, out):
    r = subprocess.run([binary, "--repo", repo, "--base", base, "--head", head, "--out", out, "--state-dir", state,
                        "--no-evidence", "-q"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{base}..{head}: {(r.stderr or r.stdout).strip()[:300]}")
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def comparable(plan):
    plan = dict(plan)
    summary = dict(plan.get("summary", {}))
    summary.pop("analysis", None)
    plan["summary"] = summary
    return plan


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--analyze", required=True)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("rev", nargs="?", default="HEAD")
    args = ap.parse_args()
    git = ["git", f"--git-dir={args.repo}"] if not os.path.isdir(os.path.join(args.repo, ".git")) else ["git", "-C", args.repo]
    commits = subprocess.run(git + ["rev-list", "--first-parent", f"--max-count={args.count}", args.rev],
                             capture_output=True, text=True, check=True).stdout.split()[::-1]
    scratch = tempfile.mkdtemp(prefix="fastci-linked-from-base-")
    chained, linked = os.path.join(scratch, "chained"), os.path.join(scratch, "linked")
    out = os.path.join(scratch, "plan.json")
    reused = differing = 0
    analyze(args.analyze, args.repo, chained, commits[0] + "~1", commits[0] + "~1", out)  # the first base
    for c in commits:
        a = analyze(args.analyze, args.repo, chained, c + "~1", c, out)
        analyze(args.analyze, args.repo, linked, c, c, out)
        b = analyze(args.analyze, args.repo, linked, c + "~1", c, out)
        from_base = a["summary"]["analysis"].get("linked_from_base", False)
        reused += from_base
        same = comparable(a) == comparable(b)
        differing += not same
        print(f"{c[:10]} {'from base' if from_base else 'linked   '} {len(a.get('tests', []))} tests "
              f"{'same' if same else 'DIFFERENT'}", flush=True)
    print(f"{len(commits)} commits: {reused} planned from the base's linked facts, {differing} plans differ")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
