#!/usr/bin/env python3
"""merge_extras.py RECORDER_HISTORY EXTRAS_HISTORY OUT: the recorder's history with the mutants that
add_history_mutants.py added to EXTRAS_HISTORY (a copy of an earlier state of it) inserted where
add_history_mutants.py would have put them had it run on RECORDER_HISTORY: right after the last entry of
their real commit (the commit or one of its mutants), in the order they were added."""
import json, os, sys
rec = json.load(open(sys.argv[1]))
ext = json.load(open(sys.argv[2]))
have = {c["commit"] for c in rec["commits"]}
extras = [c for c in ext["commits"] if c.get("kind") == "mutant" and "mutant_id" not in c and c["commit"] not in have]
spec = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "extra-mutants.json")))
dropped = []
for e in list(extras):
    # add_history_mutants.py skips a spec when the history already has a mutant of that commit on that file
    # whose original line holds the spec's text: do the same with the recorder's (generated) mutants
    s = next(s for s in spec if e["mutant_of"].startswith(s["commit"]) and s["file"] == e["mutation"]["file"]
             and s["original"] in e["mutation"]["original"])
    if any(c.get("mutant_of") == e["mutant_of"] and c["mutation"]["file"] == s["file"] and
           s["original"] in (c["mutation"].get("original") or "") for c in rec["commits"] if c.get("kind") == "mutant"):
        extras.remove(e)
        dropped.append(e["commit"][:10])
for e in extras:
    pos = max(i for i, c in enumerate(rec["commits"]) if c["commit"] == e["mutant_of"] or c.get("mutant_of") == e["mutant_of"])
    rec["commits"].insert(pos + 1, e)
json.dump(rec, open(sys.argv[3] + ".tmp", "w"), indent=1)
os.replace(sys.argv[3] + ".tmp", sys.argv[3])
print("merged %d extra mutants%s" % (len(extras), "; dropped as present: " + ", ".join(dropped) if dropped else ""))
