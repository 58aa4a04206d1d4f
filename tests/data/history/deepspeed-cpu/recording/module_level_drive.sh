#!/bin/bash
# module_level_drive.sh FIRST LAST (as run: /work/eval/ml/drive2.sh; /work/eval/ml/module-level-mutants.json is
# ../module-level-mutants.json, same order). The hang-aware pass (entries 12 and 39) ran a copy that takes a list of
# indices and calls add_mutant_hang_aware.py instead of scripts/add_history_mutants.py.
# drive.sh FIRST LAST: records spec entries FIRST..LAST (0-based) of module-level-mutants.json, one at a time,
# into /work/eval/ds-unpacked/history.json (add_history_mutants.py skips entries already recorded);
# before each: the op extensions pre-built at the real commit; stops launching after 16:50 UTC.
cd /work/eval/ml
H=/work/eval/ds-unpacked
for i in $(seq "$1" "$2"); do
  now=$(date -u +%H%M)
  if [ "$now" -ge 1650 ]; then echo "$(date -u +%T) deadline: not launching entry $i"; break; fi
  python3 -c "
import json,sys
s=json.load(open('module-level-mutants.json'))[$i]
h=json.load(open('$H/history.json'))
real=next(c for c in h['commits'] if c.get('kind')!='mutant' and c['commit'].startswith(s['commit']))
present=[c for c in h['commits'] if c.get('mutant_of')==real['commit'] and c['mutation']['file']==s['file'] and (c['mutation'].get('original') or '').find(s['original'])>=0]
json.dump([s], open('one-$i.json','w'))
open('one-$i.commit','w').write(real['commit'])
sys.exit(3 if present else 0)"
  rc=$?
  if [ $rc = 3 ]; then echo "$(date -u +%T) entry $i: already recorded"; continue; fi
  [ $rc = 0 ] || { echo "entry $i: spec error"; continue; }
  full=$(cat one-$i.commit)
  echo "$(date -u +%T) entry $i: $(python3 -c "import json; s=json.load(open('one-$i.json'))[0]; print(s['commit'], s['file'], s['line'], repr(s['original']), '->', repr(s['replacement']))")"
  git -C $H/mutant-worktree checkout -q --force "$full" 2>/dev/null; git -C $H/mutant-worktree read-tree "$full"; git -C $H/mutant-worktree update-index -q --refresh  # a full cache-tree (blogs/ blobs are absent from the mirror), stat data kept (no rewrite, no JIT rebuild)
  rm -f $H/torch-extensions/*/lock  # a stale lock of a run cut short would make the build wait forever
  t0=$(date +%s)
  (cd $H/mutant-worktree && LOCAL_SIZE=4 TORCH_EXTENSIONS_DIR=$H/torch-extensions \
    PYTHONPATH=/work/shared/deepspeed-cpu/shims:$H/mutant-worktree PYTHONDONTWRITEBYTECODE=1 \
    nice -n 5 /usr/bin/python3 /work/eval/ml/prebuild.py CPUAdamBuilder,FusedAdamBuilder,ShareMemCommBuilder 2>&1 | grep prebuild: | tr '\n' ' ')
  t1=$(date +%s)
  echo " (prebuild $((t1 - t0)) s)"
  cp $H/history.json $H/history.bak.json
  python3 /work/main/scripts/add_history_mutants.py --history $H/history.json \
    --shims /work/shared/deepspeed-cpu/shims --extensions $H/torch-extensions --python /usr/bin/python3 one-$i.json 2>&1 | tail -5
  python3 -c "
import json,sys
a=json.load(open('$H/history.bak.json')); b=json.load(open('$H/history.json'))
new=[c for c in b['commits'] if c['commit'] not in {x['commit'] for x in a['commits']}]
ok=len(new)==1 and len(new[0]['results'])==103
if new: print('  %s: %d results, %s, killed by %s' % (new[0]['commit'][:10], len(new[0]['results']), {o: sum(1 for r in new[0]['results'] if r['outcome']==o) for o in ('passed','skipped','failed','error')}, new[0]['killed_by']))
sys.exit(0 if ok else 1)" || { echo "  BAD RUN: history restored"; cp $H/history.bak.json $H/history.json; }
  echo "$(date -u +%T) entry $i done: run $(( $(date +%s) - t1 )) s"
done
echo "$(date -u +%T) drive $1..$2 finished"
