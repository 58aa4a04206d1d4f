#!/usr/bin/env bash
# Runs each evidence reader's libFuzzer target for SECONDS (default 300), seeded with the real files of
# ../shared/data, JOBS at a time (default 2), and prints per target: runs, coverage, and crashes.
# Build first (clang only; needs libclang-rt-19-dev):
#   CXX=clang++-19 CC=clang-19 cmake -S . -B build-fuzz -G Ninja -DFASTCI_BUILD_FUZZERS=ON \
#     -DFASTCI_TREE_SITTER_PYTHON_DIR=$PWD/.deps/tree-sitter-python-0.23.6 && ninja -C build-fuzz <targets>
# usage: scripts/fuzz_readers.sh [SECONDS] [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
build=${2:-$root/build-fuzz}
jobs=${JOBS:-2}
data="$root/../shared/data"
out="$build/fuzz-results"
mkdir -p "$out"

seeds_for() {
  case "$1" in
    lcov_reader) find "$data/coverage/lcov" -type f ;;
    gcov_json_reader) find "$data" -name '*.gcov.json*' -type f ;;
    llvm_cov_reader) find "$data" -path '*llvm*' -name '*.json' -type f ;;
    kineto_reader) find "$data/traces" -name '*.json' -size -2M -type f ;;
    nsys_reader) find "$data" -name '*.sqlite' -path '*nsys*' -type f ;;
    junit_xml) find "$data/junit" -name '*.xml' -type f ;;
    fastci_jsonl_reader) find "$data" "$root/tests/fixtures" -name '*.jsonl' -type f ;;
    coveragepy_json) find "$data/coverage/coveragepy" -name '*.json' -type f ;;
    coveragepy_sqlite) find "$data/coverage/coveragepy" -name '*.sqlite' -type f ;;
  esac
}

run_one() {
  local name=$1 corpus="$out/$1/corpus" artifacts="$out/$1/artifacts/"
  mkdir -p "$corpus" "$artifacts"
  seeds_for "$name" 2>/dev/null | head -50 | while read -r f; do cp -f "$f" "$corpus/" 2>/dev/null || true; done
  "$build/evidence/fastci_${name}_fuzz" "$corpus" -max_total_time="$seconds" -max_len=1048576 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts" -print_final_stats=1 >"$out/$name/log" 2>&1 || true
  local runs cov crashes
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$name/log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$out/$name/log" | tail -1 | grep -o '[0-9]*' || echo 0)
  crashes=$(find "$artifacts" -type f | wc -l)
  printf '%-22s %10s runs  cov %6s  crashes %s\n' "$name" "$runs" "$cov" "$crashes"
}
export -f run_one seeds_for
export out build seconds data root
ls "$build"/evidence/fastci_*_fuzz | sed 's|.*/fastci_||; s|_fuzz$||' | xargs -P "$jobs" -I{} bash -c 'run_one {}'
