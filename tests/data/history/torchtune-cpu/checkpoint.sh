#!/bin/sh
# Copies the resumable state of the running (or stopped) recording into this folder, xz-compressed:
#   history.json.xz  the partial history (record_deepspeed_history.py rewrites OUT/history.json atomically
#                    after every run, so a copy taken while it runs is a complete earlier state)
#   state.json.xz    the recorder's state: start-evidence summary (executed functions, covered files),
#                    rejected mutants
#   evidence.db.xz   the SQLite store of the start evidence (written once, before the first commit)
# Usage: checkpoint.sh [OUT]   (OUT defaults to /work/tt/out)
set -eu
OUT=${1:-/work/tt/out}
HERE=$(cd "$(dirname "$0")" && pwd)
for f in history.json state.json evidence.db; do
    if [ ! -f "$OUT/$f" ]; then echo "checkpoint: $OUT/$f is missing" >&2; exit 1; fi
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cp "$OUT/history.json" "$OUT/state.json" "$TMP/"
files="history.json state.json"
# the store is written once, by the start evidence: compress it again only when it is newer than the copy
# here (xz -9e of a store of some tens of MiB takes about a minute)
if [ ! -f "$HERE/evidence.db.xz" ] || [ "$OUT/evidence.db" -nt "$HERE/evidence.db.xz" ]; then
    if command -v sqlite3 >/dev/null 2>&1; then
        sqlite3 "$OUT/evidence.db" ".backup '$TMP/evidence.db'"
    else
        cp "$OUT/evidence.db" "$TMP/"
    fi
    files="$files evidence.db"
fi
python3 - "$TMP/history.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1], encoding="utf-8"))
real = [e for e in h["commits"] if e.get("kind") != "mutant"]
print("checkpoint: %d real commits, %d mutants; last %s" % (
    len(real), len(h["commits"]) - len(real), real[-1]["commit"][:10] if real else "-"))
PY
for f in $files; do
    xz -9e -T1 -c "$TMP/$f" > "$HERE/$f.xz.tmp"
    mv "$HERE/$f.xz.tmp" "$HERE/$f.xz"
done
ls -l "$HERE"/*.xz
