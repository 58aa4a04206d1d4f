#!/usr/bin/env bash
# Presubmit cost of fastci-analyze on a real repository: a cold run (empty index cache), a warm
# re-run of the same change, and a change whose head differs from the cached commit in one file.
#
# usage: tests/bench/analyze_megatron.sh REPO [HEAD_REF]
#   REPO      a Megatron-LM clone (any git repository works; bare clones too)
#   HEAD_REF  the commit to analyse against its parent (default HEAD)
# environment: FASTCI_BUILD_DIR (default build/), REPEAT (runs per case, fastest reported; default 3),
#              THREADS (parser threads; default nproc)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${FASTCI_BUILD_DIR:-$here/build}"
repo="${1:?usage: analyze_megatron.sh REPO [HEAD_REF]}"
head="${2:-HEAD}"
repeat="${REPEAT:-3}"
threads="${THREADS:-$(nproc)}"
analyze="$build/cli/fastci-analyze"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The parent of the newest commit of HEAD's ancestry that changes exactly one Python file: that
# commit's tree differs from its parent's in that file only, so a cache warmed on the parent
# re-parses one file.
one_file=""
for c in $(git -C "$repo" rev-list --max-count=200 "$head"); do
  if [ "$(git -C "$repo" diff-tree --no-commit-id --name-only -r "$c" | wc -l)" -eq 1 ] &&
     git -C "$repo" diff-tree --no-commit-id --name-only -r "$c" | grep -q '\.py$'; then
    one_file=$c
    break
  fi
done

seconds() { local start end; start=$(date +%s%N); "$@" >/dev/null; end=$(date +%s%N); awk -v ns=$((end - start)) 'BEGIN { printf "%.2f\n", ns / 1e9 }'; }
fastest() { sort -g | head -1; }
run() { "$analyze" --repo "$repo" --threads "$threads" -q --out "$work/plan.json" "$@"; }

files=$(git -C "$repo" ls-tree -r --name-only "$head" | grep -c '\.py$')
kloc=$(git -C "$repo" ls-tree -r --name-only "$head" | grep '\.py$' |
       while read -r f; do git -C "$repo" cat-file -p "$head:$f"; done | wc -l)

cold=$(for _ in $(seq "$repeat"); do rm -rf "$work/state"; seconds run --state-dir "$work/state" --base "$head~1" --head "$head"; done | fastest)
warm=$(for _ in $(seq "$repeat"); do seconds run --state-dir "$work/state" --base "$head~1" --head "$head"; done | fastest)
one=""
if [ -n "$one_file" ]; then
  one=$(for _ in $(seq "$repeat"); do
          rm -rf "$work/state1"
          run --state-dir "$work/state1" --base "$one_file~2" --head "$one_file~1" >/dev/null
          seconds run --state-dir "$work/state1" --base "$one_file~1" --head "$one_file"
        done | fastest)
fi

echo "repository:     $repo @ $(git -C "$repo" rev-parse --short=10 "$head") ($files Python files, $((kloc / 1000)) kLoC)"
echo "machine:        $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $threads parser threads"
echo "cold (no cache):            ${cold} s"
echo "warm (same change again):   ${warm} s"
[ -n "$one" ] && echo "one-file change ($(git -C "$repo" rev-parse --short=10 "$one_file")): ${one} s"
echo "(fastest of $repeat runs each)"
