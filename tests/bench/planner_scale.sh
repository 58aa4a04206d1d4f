#!/usr/bin/env bash
# The planner at CI scale: 10k tests x 50k symbols x 20M (test, line) coverage pairs (defaults of
# planner_scale.py), evidence in the SQLite store, a change of 20 functions. Prints the planner's own
# time (selection, evidence, pruning, ordering: summary.analysis.select_seconds), the whole run, and
# the peak memory of a warm run.
# usage: tests/bench/planner_scale.sh [generator options...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${FASTCI_BUILD_DIR:-$here/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$here/tests/bench/planner_scale.py" "$work" "$@"
/usr/bin/time -f "ingest: %e s, %M KB" "$build/cli/fastci" --repo "$work/repo" ingest -q "$work/evidence.jsonl"
"$build/cli/fastci" --repo "$work/repo" evidence stats | sed -n '3,8p'
"$build/cli/fastci-analyze" --repo "$work/repo" --base base --head change --out "$work/plan.json" -q  # fills the index cache
for i in 1 2 3; do
  /usr/bin/time -f "warm run: %e s wall, %M KB max resident" \
    "$build/cli/fastci-analyze" --repo "$work/repo" --base base --head change --out "$work/plan.json" -q
  python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['summary']; print('  planner (select+evidence+prune+order): %.2f s; analysis %.2f s; selected %d, pruned %d of %d' % (s['analysis']['select_seconds'], s['analysis']['total_seconds'], s['selected'], s['pruned'], s['tests_total']))" "$work/plan.json"
done
