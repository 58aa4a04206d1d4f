#!/usr/bin/env bash
# Wall time of the same tests under plain pytest, pytest-cov with per-test contexts, and fastci_pytest.
#
# usage: tests/bench/plugin_overhead.sh [fixture|deepspeed|all]   (default all)
# environment:
#   PYTHON            interpreter with pytest, pytest-cov (default build/venv/bin/python)
#   PYTHON_MONITORING optional Python 3.12+ with pytest: the fixture suite is also timed on the sys.monitoring backend
#   DEEPSPEED_DIR     DeepSpeed v0.14.2 work tree (default /work/ext/DeepSpeed-v0.14.2); skipped when absent
#   DEEPSPEED_PYTHON  interpreter with torch for DeepSpeed (default /usr/bin/python3)
#   DEEPSPEED_TESTS   test paths/node ids under DeepSpeed's tests/ (default unit/comm/test_dist.py)
#   DEEPSPEED_SHIMS   stand-ins for hjson/ninja/cpuinfo (default /work/shared/deepspeed-cpu/shims)
#   TORCH_EXTENSIONS_DIR  JIT extension cache; warm it first (the first DeepSpeed run builds cpu_adam)
#   REPEAT            runs per configuration, the fastest is reported (default 1)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
which="${1:-all}"
python="${PYTHON:-$here/build/venv/bin/python}"
repeat="${REPEAT:-1}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# seconds <directory> <command...>: fastest wall time of REPEAT runs (the tests' exit status is ignored:
# the fixture suite fails on purpose)
seconds() {
  local directory="$1"; shift
  local best=""
  for _ in $(seq "$repeat"); do
    local start end elapsed
    start=$(date +%s.%N)
    (cd "$directory" && "$@" >"$work/last.log" 2>&1) || true
    end=$(date +%s.%N)
    elapsed=$(echo "$end - $start" | bc)
    if [[ -z "$best" ]] || (( $(echo "$elapsed < $best" | bc) )); then best="$elapsed"; fi
  done
  tail -1 "$work/last.log" >&2
  printf '%.2f' "$best"
}

report() {  # report <suite> <plain> <cov> <plugin> [label]
  printf '%-34s plain %7.2f s | pytest-cov --cov-context=test %7.2f s (%.2fx) | fastci_pytest %7.2f s (%.2fx)\n' \
    "$1" "$2" "$3" "$(echo "$3 / $2" | bc -l)" "$4" "$(echo "$4 / $2" | bc -l)"
}

fixture() {
  local py="$1" label="$2" extra_path="${3:-}"
  local project="$work/fixture"
  rm -rf "$project" && cp -r "$here/tests/fixtures/pytest_plugin" "$project"
  local common=(-q -p no:cacheprovider)
  local plain cov plugin
  plain=$(PYTHONPATH="$extra_path" seconds "$project" "$py" -m pytest "${common[@]}")
  cov=$(PYTHONPATH="$extra_path" seconds "$project" "$py" -m pytest "${common[@]}" --cov=minitrain --cov-branch \
        --cov-context=test --cov-report=)
  plugin=$(PYTHONPATH="$here/scripts${extra_path:+:$extra_path}" seconds "$project" "$py" -m pytest "${common[@]}" \
           -p fastci_pytest --fastci-evidence="$work/evidence-fixture")
  report "fixture suite ($label)" "$plain" "$cov" "$plugin"
}

deepspeed() {
  local ds="${DEEPSPEED_DIR:-/work/ext/DeepSpeed-v0.14.2}" py="${DEEPSPEED_PYTHON:-/usr/bin/python3}"
  if [[ ! -d "$ds/tests/unit" ]] || ! "$py" -c 'import torch' 2>/dev/null; then
    echo "deepspeed: skipped (no $ds or no torch for $py)"; return
  fi
  local shims="${DEEPSPEED_SHIMS:-/work/shared/deepspeed-cpu/shims}"
  local tests
  read -r -a tests <<<"${DEEPSPEED_TESTS:-unit/comm/test_dist.py}"
  local common=(-q -p no:cacheprovider "${tests[@]}")
  export LOCAL_SIZE=4
  local plain cov plugin
  plain=$(PYTHONPATH="$shims:.." seconds "$ds/tests" "$py" -m pytest "${common[@]}")
  cov=$(PYTHONPATH="$shims:.." seconds "$ds/tests" "$py" -m pytest "${common[@]}" --cov=deepspeed --cov-branch \
        --cov-context=test --cov-report=)
  plugin=$(PYTHONPATH="$here/scripts:$shims:.." seconds "$ds/tests" "$py" -m pytest "${common[@]}" \
           -p fastci_pytest --fastci-evidence="$work/evidence-deepspeed")
  report "DeepSpeed unit/comm/test_dist.py" "$plain" "$cov" "$plugin"
}

case "$which" in
  fixture) fixture "$python" "$("$python" -c 'import sys; print("Python %d.%d" % sys.version_info[:2])')" ;;
  deepspeed) deepspeed ;;
  all)
    fixture "$python" "$("$python" -c 'import sys; print("Python %d.%d" % sys.version_info[:2])')"
    deepspeed ;;
  *) echo "usage: $0 [fixture|deepspeed|all]" >&2; exit 2 ;;
esac
if [[ -n "${PYTHON_MONITORING:-}" && "$which" != deepspeed ]]; then
  fixture "$PYTHON_MONITORING" "$("$PYTHON_MONITORING" -c 'import sys; print("Python %d.%d" % sys.version_info[:2])')"
fi
