#!/bin/bash
# waits for the previous extra run, then for each commit: waits until the recorder has recorded it, runs it
cd /work/eval
while pgrep -f "run_extra.sh 9f0e21363" >/dev/null || pgrep -f "add_history_mutants.py --history /work/eval/ds-extra" >/dev/null; do sleep 15; done
for c in "$@"; do
  until python3 -c "
import json,sys
h=json.load(open('ds-history/history.json'))
sys.exit(0 if any(x['commit'].startswith('$c') for x in h['commits']) else 1)"; do sleep 30; done
  ./run_extra.sh "$c"
done
