#!/usr/bin/env bash
# fastci's cold and one-commit analysis of a whole repository beside Jarvis (the fastest published
# Python call-graph generator) on one package of it, in one run, rounds alternating, so both see the
# same machine and the same load. Reports wall time, user CPU and peak RSS of each (/usr/bin/time).
#
# usage: tests/bench/cold_vs_jarvis.sh REPO JARVIS [HEAD_REF]
#   REPO      a git clone (bare works) of the repository, e.g. Megatron-LM
#   JARVIS    Jarvis's tool folder (pythonJaRvis/pythonJaRvis.github.io: Jarvis/tool/Jarvis, with jarvis_cli.py)
#   HEAD_REF  the commit to analyse against its parent (default HEAD)
# environment: FASTCI_BUILD_DIR (default build/), PACKAGE (the folder Jarvis analyses; default megatron),
#              PYTHON38 (Jarvis needs Python 3.8; default pyenv's newest 3.8), REPEAT (rounds; default 2),
#              THREADS (fastci parser thread counts to show, in order; default "2 1")
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${FASTCI_BUILD_DIR:-$here/build}"
repo="${1:?usage: cold_vs_jarvis.sh REPO JARVIS [HEAD_REF]}"
jarvis="$(cd "${2:?usage: cold_vs_jarvis.sh REPO JARVIS [HEAD_REF]}" && pwd)"
head="$(git -C "$repo" rev-parse "${3:-HEAD}")"
package="${PACKAGE:-megatron}"
repeat="${REPEAT:-2}"
threads="${THREADS:-2 1}"
python38="${PYTHON38:-$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.8*/bin/python 2>/dev/null | sort -V | tail -1)}"
analyze="$build/cli/fastci-analyze"
[ -x "$analyze" ] || { echo "no $analyze: build fastci-analyze first" >&2; exit 1; }
[ -x "$python38" ] || { echo "no Python 3.8 for Jarvis: set PYTHON38" >&2; exit 1; }
[ -f "$jarvis/jarvis_cli.py" ] || { echo "no $jarvis/jarvis_cli.py" >&2; exit 1; }
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Jarvis reads files: the head's tree, exported once. fastci reads the same tree from git.
mkdir -p "$work/tree"
git -C "$repo" archive "$head" | tar -x -C "$work/tree"
mapfile -t modules < <(cd "$work/tree" && find "$package" -name '*.py' | sort | sed "s|^|$work/tree/|")

# The two newest commits of the head's ancestry that change exactly one Python file and nothing
# else: each tree differs from its parent's in that file only (the one-commit cases). Whether the
# plan came from the parent's linked facts with lines moved (an edit the linker does not read) or
# from a link is read back from the plan (summary.analysis.linked_from_base).
one_files=()
for c in $(git -C "$repo" rev-list --max-count=400 "$head"); do
  changed=$(git -C "$repo" diff-tree --no-commit-id --name-only -r "$c")
  if [ "$(printf '%s\n' "$changed" | wc -l)" -eq 1 ] && [[ "$changed" == *.py ]]; then one_files+=("$c"); fi
  [ "${#one_files[@]}" -ge 2 ] && break
done

# measure NAME CMD...: one line "NAME wall user peak_MB" on results.
measure() {
  local name=$1; shift
  /usr/bin/time -f "%e %U %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" ||
    { echo "$name failed:" >&2; tail -5 "$work/stderr" >&2; exit 1; }
  read -r wall user kb <"$work/time"
  echo "$name $wall $user $((kb / 1024))" >>"$work/results"
}
fastci=("$analyze" --repo "$repo" --no-evidence -q --out "$work/plan.json")

for round in $(seq "$repeat"); do
  (cd "$jarvis" && measure jarvis "$python38" jarvis_cli.py "${modules[@]}" --package "$work/tree" -o "$work/jarvis.json")
  for t in $threads; do
    rm -rf "$work/state"
    measure "fastci-cold-${t}t" "${fastci[@]}" --threads "$t" --state-dir "$work/state" --base "$head~1" --head "$head"
  done
  for one_file in "${one_files[@]}"; do
    t=${threads%% *}
    rm -rf "$work/state1"
    "${fastci[@]}" --threads "$t" --state-dir "$work/state1" --base "$one_file~2" --head "$one_file~1"
    measure "fastci-one-commit-${one_file:0:7}-${t}t" "${fastci[@]}" --threads "$t" --state-dir "$work/state1" --base "$one_file~1" --head "$one_file"
    how=$(python3 -c 'import json,sys; print("moved lines" if json.load(open(sys.argv[1]))["summary"]["analysis"].get("linked_from_base") else "linked")' "$work/plan.json")
    echo "${one_file:0:7} $how" >>"$work/one_commit_kinds"
  done
done

files=$(git -C "$repo" ls-tree -r --name-only "$head" | grep -c '\.py$')
echo "repository:  $repo @ ${head:0:10} ($files Python files; Jarvis on $package/: ${#modules[@]} files)"
echo "machine:     $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average at the start: $load_before"
for one_file in "${one_files[@]}"; do
  echo "one commit:  $(git -C "$repo" rev-parse --short=10 "$one_file") against a cache warmed on its parent: $(awk -v c="${one_file:0:7}" '$1 == c { $1 = ""; print substr($0, 2); exit }' "$work/one_commit_kinds")"
done
echo "$repeat rounds; fastest wall of each, with that run's user CPU and the highest peak RSS:"
printf '%-24s %9s %9s %9s %9s\n' case wall user "peak MB" "x Jarvis"
jarvis_wall=$(awk '$1 == "jarvis" { if (min == "" || $2 < min) min = $2 } END { print min }' "$work/results")
for name in $(awk '{ print $1 }' "$work/results" | awk '!seen[$0]++'); do
  awk -v n="$name" -v j="$jarvis_wall" '$1 == n { if (w == "" || $2 < w) { w = $2; u = $3 } if ($4 > m) m = $4 }
    END { printf "%-24s %8.2fs %8.2fs %9d %9.3f\n", n, w, u, m, w / j }' "$work/results"
done
