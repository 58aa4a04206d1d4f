#!/usr/bin/env bash
# Records tests/fixtures/cpp/ext's tests on a GPU the way a CI shard would: the extension built with
# torch's CUDAExtension, pytest under fastci's plugin (-p fastci_pytest) and the CUPTI collector
# (CUDA_INJECTION64_PATH), the plugin naming the running test in FASTCI_CURRENT_TEST_FILE for it.
#
# Usage: cuda/record_fixture_evidence.sh OUT [PYTHON]
# Writes OUT/fastci-*.jsonl (the plugin's and the collector's files) and OUT/pytest.log. Needs torch
# with a usable GPU, nvcc, g++ and coverage.py. The evidence is kept as tests/data/gpu/fixture-ext/ and
# planner/analyze_native_test.cc plans a kernel change with it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:?usage: record_fixture_evidence.sh OUT [PYTHON]}" && cd "$1" && pwd)
python=${2:-python3}
work=$(mktemp -d /tmp/fastci-fixture-XXXXXX)
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' ||
  { echo "record_fixture_evidence: torch with a usable GPU is required"; exit 2; }

# The CUPTI collector, built as cuda/gpu_check.sh builds it.
cupti_root=""
for root in "${CUDA_HOME:-/usr/local/cuda}" "${CUDA_HOME:-/usr/local/cuda}/extras/CUPTI"; do
  [[ -f "$root/include/cupti.h" ]] && cupti_root=$root && break
done
[[ -n "$cupti_root" ]] || { echo "record_fixture_evidence: cupti.h not found under CUDA_HOME"; exit 2; }
cupti_library=$(ls "$cupti_root"/lib64/libcupti.so* "$cupti_root"/lib/libcupti.so* 2>/dev/null | head -n1 || true)
sources=()
for s in kernel_names current_test kernel_registry launch_table evidence_writer real_function cupti_collector; do
  sources+=("$repo/cuda/$s.cc")
done
g++ -std=c++20 -O2 -fPIC -shared -fvisibility=hidden -I"$repo" -I"$cupti_root/include" "${sources[@]}" \
  "$cupti_library" -Wl,-rpath,"$(dirname "$cupti_library")" -ldl -lpthread -o "$work/libfastci_cupti.so"

# The extension, built in place in a copy of the fixture (its own repository root for test ids).
cp -r "$repo/tests/fixtures/cpp/ext" "$work/ext"
# torch's ninja build compiles from its build folder: the include folder must be absolute there.
sed -i "s|\"csrc/include\"|\"$work/ext/csrc/include\"|" "$work/ext/setup.py"
(cd "$work/ext" && MAX_JOBS=8 "$python" setup.py -q build_ext --inplace >"$out/build.log" 2>&1) ||
  { tail -30 "$out/build.log"; exit 1; }

cd "$work/ext"
status=0
env PYTHONPATH="$repo/scripts" CUDA_INJECTION64_PATH="$work/libfastci_cupti.so" FASTCI_EVIDENCE_DIR="$out" \
  FASTCI_CURRENT_TEST_FILE="$work/current-test" FASTCI_COMMIT=fixture \
  "$python" -m pytest -p fastci_pytest --fastci-evidence="$out" -p no:cacheprovider -v tests/test_ops.py \
  >"$out/pytest.log" 2>&1 || status=$?
cat "$out/pytest.log"
ls -la "$out"
exit $status
