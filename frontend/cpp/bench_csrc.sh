#!/usr/bin/env bash
# Times the C++/CUDA frontend over every .cpp/.cu under a repository's csrc/ against
# `clang-19 -fsyntax-only` with the same command lines (stub headers read from disk), one run each,
# one file at a time. Usage: bench_csrc.sh [REPOSITORY] [FASTCI_CPP_FACTS_BINARY]
set -euo pipefail
repository=${1:-/work/ext/DeepSpeed}
binary=${2:-$(dirname "$0")/../../build/frontend/cpp/fastci-cpp-facts}
stubs=$(cd "$(dirname "$0")/stubs" && pwd)
clang=${CLANG:-clang++-19}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mapfile -t files < <(cd "$repository" && find csrc \( -name '*.cpp' -o -name '*.cu' \) | sort)
paths=("${files[@]/#/$repository/}")
echo "files: ${#files[@]}"

start=$(date +%s.%N)
"$binary" --repo "$repository" --threads 1 --summary "${paths[@]}" > "$work/summary.json" 2> /dev/null
frontend=$(echo "$(date +%s.%N) - $start" | bc)
cat "$work/summary.json"

# The frontend's own command lines, with the in-memory stub directory replaced by the on-disk one.
"$binary" --repo "$repository" --print-flags "${paths[@]}" | sed "s|/fastci-stub-headers|$stubs|g" > "$work/lines"
start=$(date +%s.%N)
while read -r -a line; do
  "$clang" "${line[@]:1}" > /dev/null 2>&1 || true
done < "$work/lines"
syntax_only=$(echo "$(date +%s.%N) - $start" | bc)

printf 'frontend (facts, 1 thread): %.1f s\nclang -fsyntax-only:        %.1f s\nratio: %.2fx\n' \
  "$frontend" "$syntax_only" "$(echo "$frontend / $syntax_only" | bc -l)"
