#!/usr/bin/env bash
# Reproduces docs/evaluation.md from a history committed under tests/data/history/ and a plain clone of the
# repository it was recorded on:
#
#   scripts/evaluate.sh --history tests/data/history/deepspeed-cpu --repo CLONE --out DIR
#                       [--fastci PATH] [--strategy LIST] [--threads N]
#
# CLONE: a clone of the upstream repository that holds the recorded commits (for deepspeed-cpu:
# `git clone https://github.com/deepspeedai/DeepSpeed`); it is only read. DIR receives
#   repo/          a `git clone --shared --no-checkout` of CLONE with the mutant commits recreated from the
#                  history's patches (scripts/history_pack.py unpack)
#   evidence.db    the decompressed evidence store
#   history.json   the history, pointing at repo/ and evidence.db, mutant ids rewritten where they differ
#   replay.md      `fastci replay`'s Markdown tables (totals, mutants, every commit and strategy)
#   replay.json    its totals as JSON (`fastci replay --json`, docs/replay.md)
#   tables.md      the tables of docs/evaluation.md derived from those (vs the paper's figures, the mutants)
#   timing.txt     how long the unpacking and the replay took
# --fastci defaults to the repository's build/cli/fastci (scripts/setup.sh builds it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
history="" repo="" out="" threads=2
fastci="$root/build/cli/fastci"
strategies="run-all,file-level,coverage-only,fastci-select,fastci-prune,fastci-prioritize,fastci-shrink"
strategies_given=0

usage() {
  sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --history) history="${2:?}"; shift 2 ;;
    --repo) repo="${2:?}"; shift 2 ;;
    --out) out="${2:?}"; shift 2 ;;
    --fastci) fastci="${2:?}"; shift 2 ;;
    --strategy) strategies="${2:?}"; strategies_given=1; shift 2 ;;
    --threads) threads="${2:?}"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "evaluate.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$history" ] && [ -n "$repo" ] && [ -n "$out" ] || usage
for f in history.json.xz evidence.db.xz mutants.json; do
  [ -f "$history/$f" ] || { echo "evaluate.sh: $history/$f is missing (not a packed history?)" >&2; exit 3; }
done
git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || { echo "evaluate.sh: $repo is not a git repository" >&2; exit 3; }
[ -x "$fastci" ] || { echo "evaluate.sh: no fastci binary at $fastci (run scripts/setup.sh or pass --fastci)" >&2; exit 3; }

# Selections other tools made at each commit, recorded beside the history (scripts/record_tests_fetcher.py).
if [ "$strategies_given" = 0 ]; then
  for baseline in "$history"/baselines/*.json; do
    [ -f "$baseline" ] && strategies="$strategies,$(basename "$baseline" .json)"
  done
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
start=$(date +%s)
python3 "$root/scripts/history_pack.py" unpack --pack "$history" --repo "$repo" --out "$out"
unpacked=$(date +%s)
echo "evaluate.sh: fastci replay --history $out/history.json --state-dir $out/state --strategy $strategies" >&2
"$fastci" replay --history "$out/history.json" --state-dir "$out/state" --threads "$threads" \
  --strategy "$strategies" --json "$out/replay.json" >"$out/replay.md"
replayed=$(date +%s)
python3 "$root/scripts/history_pack.py" tables --replay "$out/replay.json" --history "$out/history.json" >"$out/tables.md"
{
  echo "fastci: $fastci ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"
  echo "unpack: $((unpacked - start)) s"
  echo "replay: $((replayed - unpacked)) s"
  echo "total: $(( $(date +%s) - start )) s"
} >"$out/timing.txt"
cat "$out/timing.txt"
echo "evaluate.sh: wrote $out/replay.md, $out/replay.json, $out/tables.md"
