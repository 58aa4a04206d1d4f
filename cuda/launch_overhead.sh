#!/usr/bin/env bash
# Launch-path overhead of libfastci_launch.so: runs the launch_bench fixture (N launches of an empty
# kernel) plain and under the interposer in several modes, REPEAT times each, and prints the median
# wall and thread-CPU nanoseconds per launch.
# Usage: cuda/launch_overhead.sh BUILD_DIR [N] [REPEAT]
set -euo pipefail
build=${1:?usage: launch_overhead.sh BUILD_DIR [N] [REPEAT]}
launches=${2:-1000000}
repeat=${3:-5}
bench=$build/cuda/fastci_fixture_launch_bench
library=$build/cuda/libfastci_launch.so
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "tests/test_bench.py::test_launch_rate" > "$scratch/current-test"

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

measure() {  # label, then env assignments
  local label=$1; shift
  local walls=() cpus=()
  for _ in $(seq "$repeat"); do
    line=$(env "$@" "$bench" "$launches")
    walls+=("$(sed -E 's/.*wall_ns_per_launch ([0-9.]+).*/\1/' <<<"$line")")
    cpus+=("$(sed -E 's/.*cpu_ns_per_launch ([0-9.]+).*/\1/' <<<"$line")")
  done
  printf '%-44s wall %7s ns/launch   cpu %7s ns/launch\n' "$label" \
    "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)"
}

echo "launch_bench, $launches launches x $repeat runs, medians ($(nproc) CPUs)"
measure "plain" FASTCI_UNUSED=1
measure "interposer, no test file" LD_PRELOAD="$library" FASTCI_EVIDENCE_DIR="$scratch/e1"
measure "interposer, test file polled every 1 ms" LD_PRELOAD="$library" FASTCI_EVIDENCE_DIR="$scratch/e2" \
  FASTCI_CURRENT_TEST_FILE="$scratch/current-test"
measure "interposer, test file stat() every launch" LD_PRELOAD="$library" FASTCI_EVIDENCE_DIR="$scratch/e3" \
  FASTCI_CURRENT_TEST_FILE="$scratch/current-test" FASTCI_TEST_POLL_MS=0
