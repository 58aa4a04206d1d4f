#!/bin/sh
# The resumable state of a history being recorded by record_deepspeed_history.py, kept in the repository
# between sittings on machines that do not last.
#
#   history_checkpoint.sh save HISTORY_DIR OUT      copies OUT's state into HISTORY_DIR, xz-compressed
#   history_checkpoint.sh restore HISTORY_DIR OUT   unpacks it into a fresh OUT, from which the recorder
#                                                   resumes (OUT must not hold a history.json yet)
#
# The files (HISTORY_DIR/<name>.xz):
#   history.json  the partial history (the recorder rewrites OUT/history.json atomically after every run,
#                 so a copy taken while it runs is a complete earlier state)
#   state.json    the recorder's state: the machine, the start-evidence summary (executed functions,
#                 covered files), rejected mutants
#   evidence.db   the SQLite store of the start evidence (written once, before the first commit)
# On restore the recorder clones its --source into OUT/repo again, finds the start evidence in state.json
# (and does not re-run it), and skips every commit already in history.json.
set -eu
usage() { echo "usage: history_checkpoint.sh save|restore HISTORY_DIR OUT" >&2; exit 2; }
[ $# -eq 3 ] || usage
ACTION=$1
HERE=$(cd "$2" && pwd)
OUT=$3

if [ "$ACTION" = restore ]; then
    if [ -e "$OUT/history.json" ]; then echo "restore: $OUT/history.json exists; not overwriting" >&2; exit 1; fi
    mkdir -p "$OUT"
    for f in history.json state.json evidence.db; do
        xz -dc "$HERE/$f.xz" > "$OUT/$f"
    done
    echo "restore: $OUT ready"
    exit 0
fi
[ "$ACTION" = save ] || usage

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
