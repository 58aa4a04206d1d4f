#!/usr/bin/env bash
# Scores fastci's Python call graph against PyCG's micro-benchmark.
# Usage: scripts/eval_pycg.sh PATH_TO_PYCG_CHECKOUT [BUILD_DIR]
#        scripts/eval_pycg.sh --jarvis PATH_TO_JARVIS_FOLDER [BUILD_DIR]  (Jarvis's micro-benchmark)
# Builds nothing: uses BUILD_DIR/frontend/python/fastci-pycg-eval (default build/).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flags=()
if [[ "${1:-}" == --jarvis ]]; then flags=(--jarvis); shift; fi
pycg="${1:?usage: $0 [--jarvis] PATH_TO_PYCG_CHECKOUT [BUILD_DIR]}"
build="${2:-$here/../build}"
binary="$build/frontend/python/fastci-pycg-eval"
if [[ ! -x "$binary" ]]; then
  echo "no $binary: build the fastci-pycg-eval target first" >&2
  exit 1
fi
exec python3 "$here/eval_pycg.py" "${flags[@]}" "$pycg" "$binary"
