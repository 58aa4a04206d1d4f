#!/usr/bin/env python3
"""merge_module_level.py UNPACKED EXTENDED OUT: checks the history that add_history_mutants.py extended with
the mutants of module-level-mutants.json (EXTENDED: `history_pack.py unpack` of this folder, UNPACKED: a copy
of it taken before the first mutant run) and writes OUT for `history_pack.py pack`: every real commit and
every earlier mutant unchanged and in the same order, each added entry a mutant of the spec with all the
history's tests, and the repository and store paths put back to the recorded relative ones ("repo",
"evidence.db") that unpack rewrote."""
import json, os, sys

before = json.load(open(sys.argv[1]))
after = json.load(open(sys.argv[2]))
spec = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "module-level-mutants.json")))
old = {c["commit"] for c in before["commits"]}
kept = [c for c in after["commits"] if c["commit"] in old]
if kept != before["commits"]:
    sys.exit("the real commits or the earlier mutants changed")
tests = [r["id"] for r in before["commits"][0]["results"]]
added = [c for c in after["commits"] if c["commit"] not in old]
for c in added:
    m = c["mutation"]
    s = [s for s in spec if c["mutant_of"].startswith(s["commit"]) and s["file"] == m["file"] and s["line"] == m["line"]
         and s["original"].strip() in m["original"] and s["replacement"].strip() in m["replacement"]]
    if c.get("kind") != "mutant" or len(s) != 1:
        sys.exit("%s: not a mutant of module-level-mutants.json" % c["commit"][:10])
    if sorted(r["id"] for r in c["results"]) != sorted(tests):
        sys.exit("%s: %d results, not the history's %d tests" % (c["commit"][:10], len(c["results"]), len(tests)))
    if "recorded_commit" in c:
        sys.exit("%s: recreated with another id" % c["commit"][:10])
for key in ("format", "cluster_gpus", "test_command", "recording"):
    if after[key] != before[key]:
        sys.exit("history field %s changed" % key)
after["repository"] = "repo"
after["evidence_store"] = "evidence.db"
json.dump(after, open(sys.argv[3] + ".tmp", "w"), indent=1)
os.replace(sys.argv[3] + ".tmp", sys.argv[3])
print("%d module-level mutants added (%d killed) to %d commits and %d earlier mutants" %
      (len(added), sum(1 for c in added if c["killed_by"]), sum(1 for c in kept if c.get("kind") != "mutant"),
       sum(1 for c in kept if c.get("kind") == "mutant")))
