#!/usr/bin/env bash
# Memory and time of `fastci ingest` on a Kineto trace of about SIZE_MB (default 1024) megabytes,
# made by repeating the events of the largest real trace in ../shared/data (35 MB, 75,718 events).
# usage: tests/bench/kineto_large_trace.sh [SIZE_MB]     (needs 2 x SIZE_MB of free space in TMPDIR)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${FASTCI_BUILD_DIR:-$here/build}"
size_mb="${1:-1024}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
source_trace="$here/../shared/data/traces/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"

python3 - "$source_trace" "$work/large.pt.trace.json" "$size_mb" <<'PY'
import gzip, json, sys
trace = json.load(gzip.open(sys.argv[1]))
events = trace.pop("traceEvents")
body = ",\n".join(json.dumps(e, separators=(",", ":")) for e in events)
target = int(sys.argv[3]) << 20
with open(sys.argv[2], "w") as out:
    head = json.dumps(trace)[:-1] + ', "traceEvents": [\n'
    out.write(head)
    written, copies = len(head), 0
    while written < target:
        if copies: out.write(",\n")
        out.write(body)
        written += len(body) + 2
        copies += 1
    out.write("\n]}\n")
print(f"{copies} copies of {len(events)} events, {written >> 20} MB", file=sys.stderr)
PY
ls -l "$work/large.pt.trace.json" | awk '{printf "trace: %.0f MB\n", $5 / 1048576}'
/usr/bin/time -f "ingest: %e s wall, %M KB max resident" \
  "$build/cli/fastci" --repo "$work" ingest --format kineto --store "sqlite://$work/evidence.db" "$work/large.pt.trace.json"
