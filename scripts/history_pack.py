#!/usr/bin/env python3
"""Packs a history recorded by record_deepspeed_history.py into a small folder that can be committed, and
unpacks it again against a plain clone of the recorded repository (Python 3 standard library only).

  history_pack.py pack   --history OUT/history.json --dest tests/data/history/NAME [--recreate-missing]
  history_pack.py unpack --pack tests/data/history/NAME --repo CLONE --out DIR
  history_pack.py tables --replay DIR/replay.json --history DIR/history.json

pack writes, into --dest:
  history.json.xz   the history, as recorded (its "repository" and "evidence_store" are rewritten by unpack)
  evidence.db.xz    the SQLite evidence store recorded at the start of the history
  mutants.json      one entry per mutant: its index in the history, its recorded commit id, the real commit it
                    is committed on, the branch it was recorded as, the commit's author, committer and message
                    (so that unpack recreates the same commit id), and its patch
  mutants/NNN-<id>.patch
                    the mutant as `git format-patch -U0` output against its real commit: the mutated line only,
                    no context and no function name in the hunk header (unpack applies it with --unidiff-zero)
Every patch is checked at pack time: recreating the commit from it in the recording's repository must give
the recorded commit id.

unpack makes DIR/repo (a `git clone --shared --no-checkout` of CLONE: CLONE itself is not written to),
recreates every mutant commit there from its patch (a temporary index, `git apply --cached`, `git
commit-tree` with the recorded identity and dates), sets the recorded branch names, decompresses the store to
DIR/evidence.db and writes DIR/history.json with the repository, the store and, where a recreated id differs
from the recorded one, the mutant's commit id rewritten. It prints how many ids matched.

tables prints the Markdown tables of docs/evaluation.md that come from a replay's JSON (`fastci replay
--json`) and the history: the comparison with the paper's figures and the list of mutants.
"""

import argparse
import hashlib
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile

PAPER = {"latency": -77.5, "gpu_hours": -63.9, "retention": +3.2}


def git_bytes(repo, *args, env=None, input=None):
    proc = subprocess.run(["git", "-C", repo, *args], capture_output=True, env=env, input=input)
    if proc.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), proc.stderr.decode(errors="replace").strip()))
    return proc.stdout


def git(repo, *args, env=None, input=None):
    """Text output; patches go through git_bytes (a text pipe would turn CRLF lines into LF)."""
    return git_bytes(repo, *args, env=env, input=input).decode()


def commit_identity(repo, sha):
    """Author, committer (raw dates) and message of a commit, from its object."""
    raw = git(repo, "cat-file", "commit", sha)
    header, _, message = raw.partition("\n\n")
    ident = {}
    for line in header.split("\n"):
        key, _, value = line.partition(" ")
        if key in ("author", "committer"):
            name, _, rest = value.partition(" <")
            email, _, date = rest.partition("> ")
            ident[key] = {"name": name, "email": email, "date": date}
    return ident["author"], ident["committer"], message


def recreate(repo, real, patch_bytes, author, committer, message):
    """The id of the commit `patch_bytes` makes on top of `real` with that identity; writes objects only."""
    fd, index = tempfile.mkstemp(prefix="fastci-mutant-index-")
    os.close(fd)
    os.unlink(index)
    fd, msgfile = tempfile.mkstemp(prefix="fastci-mutant-msg-")
    os.close(fd)
    try:
        env = dict(os.environ, GIT_INDEX_FILE=index,
                   GIT_AUTHOR_NAME=author["name"], GIT_AUTHOR_EMAIL=author["email"], GIT_AUTHOR_DATE=author["date"],
                   GIT_COMMITTER_NAME=committer["name"], GIT_COMMITTER_EMAIL=committer["email"],
                   GIT_COMMITTER_DATE=committer["date"])
        git(repo, "read-tree", real, env=env)
        git_bytes(repo, "apply", "--cached", "--unidiff-zero", "-", env=env, input=patch_bytes)
        tree = git(repo, "write-tree", "--missing-ok", env=env).strip()
        with open(msgfile, "wb") as fh:
            fh.write(message.encode())
        return git(repo, "commit-tree", tree, "-p", real, "-F", msgfile, env=env).strip()
    finally:
        for path in (index, msgfile):
            if os.path.exists(path):
                os.unlink(path)


def branch_of(entry):
    if entry.get("branch"):
        return entry["branch"]
    return "mutant-extra/" + entry["commit"][:10]  # add_history_mutants.py's name


def same_content(src, packed):
    """Whether an .xz file decompresses to the bytes of `src` (then it is left as it is: xz and Python's
    lzma compress the same bytes differently, and a history folder in git should not change for that)."""
    if not os.path.exists(packed):
        return False
    digests = []
    for opener, path in ((open, src), (lzma.open, packed)):
        h = hashlib.sha256()
        with opener(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        digests.append(h.digest())
    return digests[0] == digests[1]


def write_xz(src, dest):
    if same_content(src, dest):
        return
    with open(src, "rb") as fin, lzma.open(dest, "wb", preset=9 | lzma.PRESET_EXTREME) as fout:
        shutil.copyfileobj(fin, fout)


def read_xz(src, dest):
    with lzma.open(src, "rb") as fin, open(dest, "wb") as fout:
        shutil.copyfileobj(fin, fout)


def recorder():
    """The recorder's module, for the mutants it made (imported only where a mutant commit is missing)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import record_deepspeed_history
    return record_deepspeed_history


def pack(args):
    history_path = os.path.abspath(args.history)
    folder = os.path.dirname(history_path)
    with open(history_path, encoding="utf-8") as fh:
        history = json.load(fh)
    repo = os.path.join(folder, history["repository"])
    store = os.path.join(folder, history["evidence_store"])
    os.makedirs(os.path.join(args.dest, "mutants"), exist_ok=True)
    # patches are made and checked in a staging folder first: a pack that stops half way (a mutant commit
    # missing from the clone) leaves the previous pack as it was
    staging = tempfile.mkdtemp(prefix=".mutants-", dir=args.dest)
    try:
        manifest, recreated = write_patches(args, history, repo, staging)
        for old in os.listdir(os.path.join(args.dest, "mutants")):
            if old.endswith(".patch"):
                os.unlink(os.path.join(args.dest, "mutants", old))
        for name in os.listdir(staging):
            os.replace(os.path.join(staging, name), os.path.join(args.dest, "mutants", name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    with open(os.path.join(args.dest, "mutants.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")
    write_xz(history_path, os.path.join(args.dest, "history.json.xz"))
    write_xz(store, os.path.join(args.dest, "evidence.db.xz"))
    real = sum(1 for e in history["commits"] if e.get("kind") != "mutant")
    print("packed %d commits and %d mutants (every patch recreates its recorded commit; %d mutant commits made "
          "again from their mutations) into %s" % (real, len(manifest), recreated, args.dest))


def write_patches(args, history, repo, staging):
    """Each mutant as a patch in `staging`, checked to recreate its recorded commit; (manifest, how many
    mutant commits were made again from their mutations)."""
    manifest = []
    recreated = 0
    for index, entry in enumerate(history["commits"]):
        if entry.get("kind") != "mutant":
            continue
        sha, real = entry["commit"], entry["mutant_of"]
        if args.recreate_missing and subprocess.run(["git", "-C", repo, "cat-file", "-e", sha + "^{commit}"],
                                                    capture_output=True).returncode != 0:
            again = recorder().recreate_mutant(repo, entry)
            if again != sha:
                sys.exit("mutant %d (%s): made again from its mutation, it is %s" % (entry["mutant_id"], sha, again))
            recreated += 1
        parents = git(repo, "rev-list", "--parents", "-n", "1", sha).split()[1:]
        if parents != [real]:
            sys.exit("mutant %s is not a commit on top of %s" % (sha, real))
        patch = git_bytes(repo, "format-patch", "-U0", "--no-signature", "--stdout", "-1", sha)
        # no function names in hunk headers: the patch holds the mutated line and nothing else of the code
        patch = re.sub(rb"^(@@ -[0-9,]+ \+[0-9,]+ @@).*$", rb"\1", patch, flags=re.M)
        name = "mutants/%03d-%s.patch" % (len(manifest) + 1, sha[:10])
        with open(os.path.join(staging, os.path.basename(name)), "wb") as fh:
            fh.write(patch)
        author, committer, message = commit_identity(repo, sha)
        again = recreate(repo, real, patch, author, committer, message)
        if again != sha:
            sys.exit("%s: recreating the mutant from its patch gives %s, not %s" % (name, again, sha))
        manifest.append({"index": index, "commit": sha, "mutant_of": real, "branch": branch_of(entry),
                         "patch": name, "author": author, "committer": committer, "message": message})
    return manifest, recreated


def merge_baselines(pack, history):
    """Other tools' selections recorded at each commit (baselines/<strategy>.json: {commit: selection},
    keyed by the recorded commit id) into each entry's "selections", for `fastci replay`."""
    folder = os.path.join(pack, "baselines")
    if not os.path.isdir(folder):
        return
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            recorded = json.load(fh)
        for entry in history["commits"]:
            selection = recorded.get(entry.get("recorded_commit", entry["commit"]))
            if selection is not None:
                entry.setdefault("selections", {})[name[:-len(".json")]] = selection


def unpack(args):
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    repo = os.path.join(out, "repo")
    if not os.path.isdir(repo):
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", os.path.abspath(args.repo), repo], check=True)
    history_file = os.path.join(out, "history.recorded.json")
    read_xz(os.path.join(args.pack, "history.json.xz"), history_file)
    with open(history_file, encoding="utf-8") as fh:
        history = json.load(fh)
    read_xz(os.path.join(args.pack, "evidence.db.xz"), os.path.join(out, "evidence.db"))
    with open(os.path.join(args.pack, "mutants.json"), encoding="utf-8") as fh:
        manifest = json.load(fh)
    missing = []
    for entry in history["commits"]:
        if entry.get("kind") == "mutant":
            continue
        for sha in (entry["commit"], entry.get("base") or entry["commit"] + "~1"):
            if subprocess.run(["git", "-C", repo, "cat-file", "-e", sha + "^{commit}"],
                              capture_output=True).returncode != 0:
                missing.append(sha)
    if missing:
        sys.exit("%s lacks %d recorded commits (a shallow or partial clone?), e.g. %s" %
                 (args.repo, len(missing), missing[0]))
    same = 0
    renamed = {}
    for m in manifest:
        with open(os.path.join(args.pack, m["patch"]), "rb") as fh:
            patch = fh.read()
        sha = recreate(repo, m["mutant_of"], patch, m["author"], m["committer"], m["message"])
        git(repo, "update-ref", "refs/heads/" + m["branch"], sha)
        entry = history["commits"][m["index"]]
        if entry.get("commit") != m["commit"]:
            sys.exit("mutants.json: entry %d of the history is %s, not mutant %s" % (m["index"], entry.get("commit"),
                                                                                   m["commit"]))
        if sha == m["commit"]:
            same += 1
        else:
            renamed[m["commit"]] = sha
            entry["recorded_commit"] = m["commit"]
            entry["commit"] = sha
    merge_baselines(args.pack, history)
    history["repository"] = repo
    history["evidence_store"] = os.path.join(out, "evidence.db")
    with open(os.path.join(out, "history.json"), "w", encoding="utf-8") as fh:
        json.dump(history, fh, indent=1)
    os.unlink(history_file)
    real = sum(1 for e in history["commits"] if e.get("kind") != "mutant")
    print("unpacked %d commits and %d mutants into %s: %d mutant ids as recorded, %d recreated with new ids%s" %
          (real, len(manifest), out, same, len(renamed),
           "".join("\n  %s -> %s" % kv for kv in renamed.items())))


def pct(value, base):
    if value is None or base is None or base == 0:
        return "-"
    return "%+.1f%%" % (100.0 * (value - base) / base)


NATIVE = (".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".tpp")


def changes_native_code(repo, base, commit):
    """Whether base..commit touches C/C++/CUDA (names only: git's file list, not its diff text)."""
    names = subprocess.run(["git", "-C", repo, "diff", "--name-only", base, commit], capture_output=True,
                           text=True, check=True).stdout.split()
    return any(name.endswith(NATIVE) for name in names)


def python_only_table(history, strategies):
    """Totals over the real commits that change no C/C++/CUDA file, and how often each strategy ran
    every recorded test there."""
    real = [e for e in history["commits"] if e.get("kind") != "mutant"]
    python_only = {e["commit"] for e in real
                   if not changes_native_code(history["repository"], e.get("base") or e["commit"] + "~1", e["commit"])}
    base_gpu = sum(r["gpu_hours"] for r in strategies["run-all"]["rows"] if r["commit"] in python_only)
    print("\n### The %d real commits that change no C/C++/CUDA file\n" % len(python_only))
    print("| strategy | tests run | GPU-hours | vs run-all | plans running every recorded test |")
    print("|---|---:|---:|---:|---:|")
    for name, s in strategies.items():
        rows = [r for r in s["rows"] if r["commit"] in python_only]
        runs = sum(r["tests_run"] for r in rows)
        gpu = sum(r["gpu_hours"] for r in rows)
        total = sum(r["tests_run"] for r in strategies["run-all"]["rows"] if r["commit"] in python_only)
        everything = sum(1 for r, a in zip(s["rows"], strategies["run-all"]["rows"])
                         if r["commit"] in python_only and r["tests_run"] == a["tests_run"])
        print("| %s | %d / %d | %.3f | %s | %d |" % (name, runs, total, gpu, pct(gpu, base_gpu), everything))


def pruning_table(strategies):
    """fastci-prune against fastci-select on the real commits where selection runs two tests or more
    (pruning needs two tests to compare)."""
    if "fastci-select" not in strategies or "fastci-prune" not in strategies:
        return
    select = [r for r in strategies["fastci-select"]["rows"] if r["mutant_of"] is None]
    prune = [r for r in strategies["fastci-prune"]["rows"] if r["mutant_of"] is None]
    pairs = [(s, p) for s, p in zip(select, prune) if s["tests_run"] >= 2]
    print("\n### Pruning: the %d real commits where fastci-select runs two tests or more\n" % len(pairs))
    print("| commit | fastci-select tests | GPU-hours | fastci-prune tests | pruned | GPU-hours |")
    print("|---|---:|---:|---:|---:|---:|")
    for s, p in pairs:
        print("| `%s` | %d | %.4f | %d | %d | %.4f |" % (s["commit"][:10], s["tests_run"], s["gpu_hours"], p["tests_run"],
                                                     p["pruned"], p["gpu_hours"]))
    gs, gp = sum(s["gpu_hours"] for s, _ in pairs), sum(p["gpu_hours"] for _, p in pairs)
    print("| all | %d | %.4f | %d | %d | %.4f (%s) |" % (sum(s["tests_run"] for s, _ in pairs), gs,
                                                     sum(p["tests_run"] for _, p in pairs),
                                                     sum(p["pruned"] for _, p in pairs), gp, pct(gp, gs)))


def mutant_runs_table(history):
    """What the mutants ran (record_deepspeed_history.py --mutant-tests covering) and what the shortcut check
    found; nothing for histories whose mutants all ran every test."""
    mutants = [e for e in history["commits"] if e.get("kind") == "mutant"]
    if not any("tests_run" in m for m in mutants):
        return
    rows = {}
    for m in mutants:
        run = m.get("tests_run", {"rule": "all", "reason": "recorded before the shortcut"})
        why = run.get("reason", "")
        if why.startswith("the start run did not execute"):
            why = "the start run did not execute the function"  # one row, not one per function
        key = (run["rule"], why if run["rule"] == "all" else "the tests that executed the function")
        row = rows.setdefault(key, [0, 0, 0])
        row[0] += 1
        row[1] += run.get("ran", len(m["results"]))
        row[2] += 1 if m.get("killed_by") else 0
    print("\n### Which tests the mutants ran\n")
    print("| rule | why | mutants | tests run (mean) | killed |")
    print("|---|---|---:|---:|---:|")
    for (rule, why), (n, ran, killed) in sorted(rows.items()):
        print("| %s | %s | %d | %.1f | %d |" % (rule, why.replace("|", "\\|"), n, ran / n, killed))
    checks = [m for m in mutants if "shortcut_check" in m]
    missed = [(m, k) for m in checks for k in m["shortcut_check"]["killers_outside_covering"]]
    print("\nShortcut check: %d mutant(s) ran every test although the evidence named the tests that executed "
          "the mutated function; %d of them killed, %d killer(s) outside those tests%s" % (
              len(checks), sum(1 for m in checks if m.get("killed_by")), len(missed),
              "." if not missed else ": " + ", ".join("`%s` (mutant of `%s`)" % (k, m["mutant_of"][:9])
                                                      for m, k in missed) + "."))


def tables(args):
    with open(args.replay, encoding="utf-8") as fh:
        replay = json.load(fh)
    with open(args.history, encoding="utf-8") as fh:
        history = json.load(fh)
    strategies = replay["strategies"]
    base = strategies.get("run-all")
    print("### Against the paper's figures\n")
    print("| strategy | CI latency vs run-all | GPU-hours vs run-all | coverage retention vs run-all |")
    print("|---|---:|---:|---:|")
    print("| FastCI paper (vs its deployed pipeline) | %+.1f%% | %+.1f%% | %+.1f%% |" %
          (PAPER["latency"], PAPER["gpu_hours"], PAPER["retention"]))
    for name, s in strategies.items():
        if base is None:
            break
        print("| %s | %s | %s | %s |" % (name, pct(s["latency_hours"], base["latency_hours"]),
                                        pct(s["gpu_hours"], base["gpu_hours"]), pct(s["retention"], base["retention"])))
    print("\n### APFD over the commits and mutants whose plan has at least 5 tests and catches a failure\n")
    print("| strategy | rows | mean APFD | mean APFDc | median time to first failure (s) | mutants caught | pruned (commits) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, s in strategies.items():
        f = lambda v: "-" if v is None else "%.3f" % v
        first = s.get("median_first_failure_seconds")
        print("| %s | %d | %s | %s | %s | %d / %d | %d |" % (
            name, s["apfd_rows"], f(s["mean_apfd"]), f(s["mean_apfdc"]), "-" if first is None else "%.3f" % first,
            s["mutants_caught"], s["mutants_killed"], s["pruned"]))
    python_only_table(history, strategies)
    pruning_table(strategies)
    mutant_runs_table(history)
    print("\n### Mutants\n")
    print("| commit | where | operator | mutation | killed by |")
    print("|---|---|---|---|---|")
    for entry in history["commits"]:
        if entry.get("kind") != "mutant":
            continue
        m = entry["mutation"]
        cut = lambda text: text[:60].replace("|", "\\|")
        killers = ", ".join("`%s`" % k.split("::", 1)[1] if "::" in k else "`%s`" % k for k in entry["killed_by"])
        print("| `%s` | `%s:%d` | %s | `%s` -> `%s` | %s |" % (entry["mutant_of"][:9], m["file"], m["line"],
                                                              m["operator"], cut(m["original"]),
                                                              cut(m["replacement"]), killers or "-"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--history", required=True)
    p.add_argument("--dest", required=True)
    p.add_argument("--recreate-missing", action="store_true",
                   help="make a mutant commit the repository lacks again from its recorded mutation (a recording "
                        "resumed on another machine) and check that it gets the recorded id")
    p = sub.add_parser("unpack")
    p.add_argument("--pack", required=True)
    p.add_argument("--repo", required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("tables")
    p.add_argument("--replay", required=True)
    p.add_argument("--history", required=True)
    args = parser.parse_args()
    {"pack": pack, "unpack": unpack, "tables": tables}[args.command](args)


if __name__ == "__main__":
    main()
