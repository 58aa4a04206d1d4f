#!/usr/bin/env python3
"""add_mutant_hang_aware.py --history H --shims S --extensions E SPEC.json: scripts/add_history_mutants.py for
a mutant that makes a distributed test hang. add_history_mutants.py runs the test command once and keeps what
its report holds, so a test that hangs in DeepSpeed's pool teardown ends the run there (the harness exits
pytest) and the tests after it have no outcome. This runs the tests with the recorder's own run_subset
(scripts/record_deepspeed_history.py, as every real commit of the history was run): its watchdog kills a
test that has no result DS_UNITTEST_TIMEOUT + 30 s after it started, runs it once more in a fresh pytest, counts
a second hang as failed ("hang: no result within the time limit") and runs the remaining tests in a fresh
pytest. Everything else is add_history_mutants.py's: the commit (same identity and message), the branch
(mutant-extra/<id>), the entry (killed_by: tests that fail here and passed or were skipped on the real
commit) and where it goes in the history (after the last entry of its real commit)."""
import argparse, json, os, py_compile, shlex, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "..", "scripts"))
import record_deepspeed_history as recorder  # noqa: E402


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout.strip()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--history", required=True)
    p.add_argument("--shims", required=True)
    p.add_argument("--extensions", required=True)
    p.add_argument("--python", default="/usr/bin/python3")
    p.add_argument("spec")
    a = p.parse_args()
    history_dir = os.path.dirname(os.path.abspath(a.history))
    history = json.load(open(a.history))
    repo = os.path.join(history_dir, history["repository"])
    worktree = os.path.join(history_dir, "mutant-worktree")
    if shlex.split(history["test_command"].split("-rA ", 1)[1]) != recorder.test_args(argparse.Namespace(tests_file=None)):
        sys.exit("the recorder's test list is not the history's test command")
    args = argparse.Namespace(out=history_dir, tests_subdir="tests", local_size=4, extensions_dir=a.extensions,
                              test_timeout=90, shims=a.shims, fastci_scripts=None, nice=5, python=a.python,
                              prebuild_ops=recorder.DEFAULT_PREBUILD_OPS, build_timeout=900, run_timeout=900,
                              tests_file=None)
    real = [c for c in history["commits"] if c.get("kind") != "mutant"]
    for spec in json.load(open(a.spec)):
        commit = next(c for c in real if c["commit"].startswith(spec["commit"]))
        git(worktree, "checkout", "-q", "--force", commit["commit"])
        path = os.path.join(worktree, spec["file"])
        lines = open(path, encoding="utf-8").read().split("\n")
        line = spec["line"]
        if spec["original"] not in lines[line - 1]:
            sys.exit("%s:%d does not hold %r" % (spec["file"], line, spec["original"]))
        before = lines[line - 1].strip()
        lines[line - 1] = lines[line - 1].replace(spec["original"], spec["replacement"], 1)
        open(path, "w", encoding="utf-8").write("\n".join(lines))
        py_compile.compile(path, doraise=True)
        git(worktree, "-c", "user.name=fastci", "-c", "user.email=fastci@example.org", "commit", "-qam",
            "mutant: %s in %s:%d" % (spec["operator"], spec["file"], line))
        mutant = git(worktree, "rev-parse", "HEAD")
        git(repo, "update-ref", "refs/heads/mutant-extra/" + mutant[:10], mutant)
        start = time.time()
        results, info = recorder.run_subset(args, worktree, "extra-mutant-" + mutant[:10])
        passed_before = {r["id"] for r in commit["results"] if r["outcome"] in ("passed", "skipped")}
        killed = sorted(r["id"] for r in results if r["outcome"] in ("failed", "error") and r["id"] in passed_before)
        entry = {"kind": "mutant", "commit": mutant, "base": commit["base"], "mutant_of": commit["commit"],
                 "mutation": {"file": spec["file"], "line": line, "operator": spec["operator"], "original": before,
                              "replacement": lines[line - 1].strip()},
                 "killed_by": killed, "results": results}
        position = max(i for i, c in enumerate(history["commits"])
                       if c["commit"] == commit["commit"] or c.get("mutant_of") == commit["commit"])
        history["commits"].insert(position + 1, entry)
        json.dump(history, open(a.history + ".tmp", "w"), indent=1)
        os.replace(a.history + ".tmp", a.history)
        sys.stderr.write("%s %s:%d: killed by %d in %.0f s (hangs: %s; pytest runs: %d)\n" % (
            commit["commit"][:10], spec["file"], line, len(killed), time.time() - start, info["hangs"],
            info["pytest_runs"]))


if __name__ == "__main__":
    main()
