#!/bin/sh
# Unpacks the committed checkpoint into a fresh output folder, so that record_deepspeed_history.py --out OUT
# resumes the recording: it clones --source into OUT/repo again, finds the start evidence in state.json
# (and does not re-run it), and skips every commit already in history.json.
# Usage: restore.sh OUT   (OUT must not hold a history.json yet)
set -eu
OUT=${1:?usage: restore.sh OUT}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -e "$OUT/history.json" ]; then echo "restore: $OUT/history.json exists; not overwriting" >&2; exit 1; fi
mkdir -p "$OUT"
for f in history.json state.json evidence.db; do
    xz -dc "$HERE/$f.xz" > "$OUT/$f"
done
echo "restore: $OUT ready"
