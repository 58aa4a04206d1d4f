#!/bin/bash
# When the parallel mutant recorder (B) is done with its first set of commits, gives it every real commit
# that A has recorded since and runs it again (it is resumable). B's extension folder holds the build.ninja
# of A's shared-memory extension with the paths rewritten to B's clone, so that B's list of compiled C++
# files (and with it the mutation candidates) is the one A would use.
cd /work/eval
while kill -0 "$(cat record-mut.pid)" 2>/dev/null; do sleep 15; done
python3 - <<'PY'
import json
a = json.load(open("/work/eval/ds-history/history.json"))
b = json.load(open("/work/eval/ds-mut/history.json"))
have = {c["commit"] for c in b["commits"]}
add = [c for c in a["commits"] if c.get("kind") != "mutant" and c["commit"] not in have]
b["commits"].extend(add)   # the recorder orders real commits by the range when it rewrites the file
json.dump(b, open("/work/eval/ds-mut/history.json", "w"), indent=1)
print("added", [c["commit"][:9] for c in add], flush=True)
PY
cd /work/main
PYTEST_XDIST_WORKER=gw5 python3 scripts/record_deepspeed_history.py --source /work/eval/DeepSpeed --out /work/eval/ds-mut \
  --last v0.14.2 --count 30 --shims /work/shared/deepspeed-cpu/shims --fastci /work/eval/bin/fastci \
  --python /usr/bin/python3 --mutants-per-commit 1 --seed 1 --phase mutants >> /work/eval/record-mut.log 2>&1
echo "round 2 done" 
