#!/usr/bin/env python3
"""Plans real commits with one or more fastci-analyze binaries (and DeepSpeed's own selector) side by side.

For each commit C of a repository, runs every given `fastci-analyze` on C~1..C (static selection: no
evidence store) and prints one Markdown row: tests selected of all discovered, widenings, and the first
witness path (or widening) of the last binary. With --tests-fetcher, also runs a copy of DeepSpeed's
`ci/tests_fetcher.py` on a scratch work tree of C (its `--repo-root`), optionally with its test scope
replaced (`--tests-fetcher-scope tests/unit`, since the shipped scope `tests/unit/v1` is newer than
most commits), and prints its mode and number of test files.

Usage:
  scripts/static_selection_commits.py --repo CLONE --analyze NAME=BINARY [--analyze NAME=BINARY ...]
      [--tests-fetcher PATH [--tests-fetcher-scope tests/unit]] [--state-dir DIR] [--json OUT]
      [--keep-plans DIR] COMMIT...

--keep-plans keeps each plan as DIR/NAME-COMMIT.json, to compare binaries test by test later.

Only the Python standard library is used; git runs on the scratch clone only (fastci reads git objects
itself).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)


def plan(binary, repo, commit, state_dir, out):
    start = time.time()
    r = run([binary, "--repo", repo, "--base", commit + "~1", "--head", commit, "--out", out,
             "--state-dir", state_dir, "--no-evidence", "-q"])
    seconds = time.time() - start
    if r.returncode != 0:
        return {"error": (r.stderr or r.stdout).strip()[:200], "seconds": seconds}
    with open(out, encoding="utf-8") as f:
        p = json.load(f)
    tests = p.get("tests", [])
    files = {t.get("file") or t["id"].split("::")[0] for t in tests}
    witness = ""
    for t in tests:
        for reason in t.get("reasons", []):
            steps = reason.get("witness") or []
            if steps:
                witness = " -> ".join(s.get("display", s.get("symbol", "")).split(" (")[0] for s in steps)
                break
        if witness:
            break
    widenings = [f"{w['file']}: {w['reason']}" for w in p["changes"].get("widenings", [])]
    checks = p.get("collection_checks", [])
    return {"selected": len(tests), "total": p["summary"]["tests_total"], "files": len(files),
            "widenings": widenings, "witness": witness, "seconds": seconds,
            "symbols": [s["id"] for s in p["changes"]["symbols"]],
            "docstrings": [s["id"] for s in p["changes"].get("docstrings", [])],
            "collection_files": sum(len(c["files"]) for c in checks)}


def tests_fetcher(script, scope, repo, commit, scratch, base=None):
    """Runs a copy of DeepSpeed's ci/tests_fetcher.py on `commit` against `base` (default commit~1):
    {"mode", "reason", "targets": [test files or folders]}, or {"error"}."""
    tree = os.path.join(scratch, "tf-tree")
    if not os.path.isdir(tree):
        r = run(["git", "clone", "-q", "--no-checkout", repo, tree])
        if r.returncode:
            return {"error": r.stderr.strip()}
    run(["git", "-C", tree, "checkout", "-q", "-f", commit])
    # The script writes its output only below its own checkout (the folder above ci/).
    os.makedirs(os.path.join(scratch, "ci"), exist_ok=True)
    copy = os.path.join(scratch, "ci", "tests_fetcher.py")
    with open(script, encoding="utf-8") as f:
        text = f.read()
    if scope:
        text = re.sub(r'test_scopes=\("tests/unit/v1", \)', f'test_scopes=("{scope}", )', text)
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text)
    out = os.path.join(scratch, "tf-list.txt")
    r = run([sys.executable, copy, "--repo-root", tree, "--base", base or commit + "~1", "--output-file", "tf-list.txt"],
            cwd=scratch)
    m = re.search(r"### MODE: (\w+) \((.*)\) ###", r.stdout)
    if not m:
        return {"error": (r.stderr or r.stdout).strip()[-200:]}
    with open(out, encoding="utf-8") as f:
        targets = [line for line in f.read().splitlines() if line]
    return {"mode": m.group(1), "reason": m.group(2), "targets": targets}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--analyze", action="append", default=[], help="NAME=PATH of a fastci-analyze binary")
    ap.add_argument("--tests-fetcher")
    ap.add_argument("--tests-fetcher-scope")
    ap.add_argument("--state-dir", default=None)
    ap.add_argument("--json")
    ap.add_argument("--keep-plans", metavar="DIR")
    ap.add_argument("commits", nargs="+")
    args = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="fastci-commits-")
    binaries = [a.split("=", 1) for a in args.analyze]
    rows = []
    for commit in args.commits:
        subject = run(["git", "-C", args.repo, "log", "-1", "--format=%h %ad %s", "--date=short", commit]).stdout.strip()
        row = {"commit": commit, "subject": subject, "plans": {}}
        for name, binary in binaries:
            state = os.path.join(args.state_dir or scratch, "state-" + name)
            row["plans"][name] = plan(binary, args.repo, commit, state, os.path.join(scratch, "plan.json"))
            if args.keep_plans and "error" not in row["plans"][name]:
                os.makedirs(args.keep_plans, exist_ok=True)
                shutil.copy(os.path.join(scratch, "plan.json"), os.path.join(args.keep_plans, f"{name}-{commit}.json"))
        if args.tests_fetcher:
            row["tests_fetcher"] = tests_fetcher(args.tests_fetcher, args.tests_fetcher_scope, args.repo, commit, scratch)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    names = [n for n, _ in binaries]
    header = "| commit | " + " | ".join(f"fastci {n}" for n in names)
    header += " | tests_fetcher |" if args.tests_fetcher else " |"
    print(header + " witness or widening |")
    print("|---" * (len(names) + 2 + bool(args.tests_fetcher)) + "|")
    for row in rows:
        cells = []
        for n in names:
            p = row["plans"][n]
            cells.append("error" if "error" in p else f"{p['selected']} / {p['total']}" + (" (widened)" if p["widenings"] else ""))
        if args.tests_fetcher:
            tf = row["tests_fetcher"]
            cells.append("error" if "error" in tf else (f"all ({tf['reason']})" if tf["mode"] == "all" else f"{len(tf['targets'])} files"))
        last = row["plans"][names[-1]] if names else {}
        why = "; ".join(last.get("widenings", [])) or last.get("witness", "") or "-"
        print(f"| `{row['subject'][:9]}` {row['subject'][10:20]} {row['subject'][21:70]} | " + " | ".join(cells) + f" | {why[:220]} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
