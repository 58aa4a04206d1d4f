"""Generates a repository and an evidence file at CI scale for the planner benchmark.

usage: python3 tests/bench/planner_scale.py DEST [--modules 500] [--functions 100] [--test-files 100]
           [--tests-per-file 100] [--files-per-test 20] [--lines-per-file 100] [--changed 20]

DEST/repo: a git repository with commits "base" and "change" (--changed functions edited); modules x
functions symbols and test-files x tests-per-file pytest tests, each test calling 5 functions.
DEST/evidence.jsonl: fastci JSONL at "base": every test passed with a duration and GPU count, covering
files-per-test files x lines-per-file lines (the (test, line) pairs), with one context per called
function.
"""

import argparse
import json
import os
import random
import subprocess


def function_text(m, f, body_variant=0):
    return f"def f_{m}_{f}(x):\n    y = x + {f + body_variant}\n    return y * {m}\n\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dest")
    p.add_argument("--modules", type=int, default=500)
    p.add_argument("--functions", type=int, default=100)
    p.add_argument("--test-files", type=int, default=100)
    p.add_argument("--tests-per-file", type=int, default=100)
    p.add_argument("--files-per-test", type=int, default=20)
    p.add_argument("--lines-per-file", type=int, default=100)
    p.add_argument("--changed", type=int, default=20)
    a = p.parse_args()
    rnd = random.Random(7)
    repo = os.path.join(a.dest, "repo")
    os.makedirs(os.path.join(repo, "big"), exist_ok=True)
    os.makedirs(os.path.join(repo, "tests"), exist_ok=True)
    open(os.path.join(repo, "big", "__init__.py"), "w").close()
    for m in range(a.modules):
        with open(os.path.join(repo, "big", f"m_{m}.py"), "w") as out:
            for f in range(a.functions):
                out.write(function_text(m, f))
    calls = {}
    for t in range(a.test_files):
        lines = []
        tests = []
        for k in range(a.tests_per_file):
            chosen = [(rnd.randrange(a.modules), rnd.randrange(a.functions)) for _ in range(5)]
            name = f"test_{t}_{k}"
            calls[f"tests/test_{t}.py::{name}"] = chosen
            body = "".join(f"    m_{m}.f_{m}_{f}(1)\n" for m, f in chosen)
            tests.append(f"def {name}():\n{body}\n")
        modules = sorted({m for k in range(a.tests_per_file) for m, _ in calls[f"tests/test_{t}.py::test_{t}_{k}"]})
        lines.append("".join(f"from big import m_{m}\n" for m in modules) + "\n\n")
        with open(os.path.join(repo, "tests", f"test_{t}.py"), "w") as out:
            out.write("".join(lines) + "".join(tests))
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="bench",
               GIT_COMMITTER_EMAIL="b@b")
    git = lambda *args: subprocess.run(["git", "-C", repo, *args], check=True, env=env, capture_output=True)
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    git("tag", "base")
    base = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()

    # Evidence at base: each test covers its called functions' files plus others, lines-per-file each.
    lines_in_file = a.functions * 4
    with open(os.path.join(a.dest, "evidence.jsonl"), "w") as out:
        out.write(json.dumps({"type": "run", "schema": 1, "commit": base, "started_at": "2026-12-01T00:00:00Z",
                              "runner": "bench", "environment": {}, "collector": "planner_scale"}) + "\n")
        for test, chosen in calls.items():
            out.write(json.dumps({"type": "test", "id": test, "outcome": "passed",
                                  "duration": round(rnd.uniform(10, 600), 1), "gpus": rnd.choice([1, 1, 2, 4, 8]),
                                  "knobs": {}, "message": ""}) + "\n")
            files = {m for m, _ in chosen}
            while len(files) < a.files_per_test:
                files.add(rnd.randrange(a.modules))
            for m in sorted(files):
                called = [f for mm, f in chosen if mm == m]
                start = 1 + (4 * called[0] if called else rnd.randrange(lines_in_file - a.lines_per_file))
                start = min(start, lines_in_file - a.lines_per_file + 1)
                out.write(json.dumps({"type": "coverage", "test": test, "file": f"big/m_{m}.py",
                                      "lines": [[start, start + a.lines_per_file - 1]], "arcs": []}) + "\n")
            for m, f in chosen:
                out.write(json.dumps({"type": "context", "test": test, "function": f"big/m_{m}.py::f_{m}_{f}",
                                      "callers": [test], "arguments": "x:int[1]",
                                      "arcs": [], "count": 1}) + "\n")

    # The change: edit functions that some tests call.
    called = sorted({mf for chosen in calls.values() for mf in chosen})
    for m, f in rnd.sample(called, a.changed):
        path = os.path.join(repo, "big", f"m_{m}.py")
        text = open(path).read().replace(function_text(m, f), function_text(m, f, 1000))
        open(path, "w").write(text)
    git("commit", "-q", "-am", "change")
    git("tag", "change")
    print(f"{a.modules * a.functions} functions, {len(calls)} tests, "
          f"{len(calls) * a.files_per_test * a.lines_per_file} (test, line) pairs, {a.changed} changed functions")


if __name__ == "__main__":
    main()
