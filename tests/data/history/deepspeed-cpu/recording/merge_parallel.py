#!/usr/bin/env python3
"""merge_parallel.py: puts the mutants that the parallel recorder instance (B, /work/eval/ds-mut) recorded into
the main recording (A, /work/eval/ds-history) before A's own mutant phase: history entries (A keeps them, and
orders each commit's mutants by mutant_id when it rewrites the file), the mutants B rejected (state.json
invalid_mutants, so that A does not try them again), and B's mutant branches (fetched into A's repo)."""
import json, os, subprocess
A, B = "/work/eval/ds-history", "/work/eval/ds-mut"
ha = json.load(open(os.path.join(A, "history.json")))
hb = json.load(open(os.path.join(B, "history.json")))
have = {c["commit"] for c in ha["commits"]}
new = [c for c in hb["commits"] if c.get("kind") == "mutant" and c["commit"] not in have]
for m in new:
    pos = max(i for i, c in enumerate(ha["commits"]) if c["commit"] == m["mutant_of"] or c.get("mutant_of") == m["mutant_of"])
    ha["commits"].insert(pos + 1, m)
sa = json.load(open(os.path.join(A, "state.json")))
sb = json.load(open(os.path.join(B, "state.json")))
for commit, keys in sb.get("invalid_mutants", {}).items():
    cur = sa.setdefault("invalid_mutants", {}).setdefault(commit, [])
    cur.extend(k for k in keys if k not in cur)
subprocess.run(["git", "-C", os.path.join(A, "repo"), "fetch", "-q", os.path.join(B, "repo"),
                "refs/heads/mutant/*:refs/heads/mutant/*"], check=True)
for path, doc in ((os.path.join(A, "history.json"), ha), (os.path.join(A, "state.json"), sa)):
    json.dump(doc, open(path + ".tmp", "w"), indent=1)
    os.replace(path + ".tmp", path)
print("merged %d mutants of B into A (ids %s)" % (len(new), [m["mutant_id"] for m in new]))
