#!/usr/bin/env bash
# Runs every test: the C++ unit and end-to-end tests (CTest) and the Python plugin tests (pytest).
# Starts a throwaway PostgreSQL server for the shared-store tests when PostgreSQL is installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="${FASTCI_BUILD_DIR:-$root/build}"
export FASTCI_NO_PROGRESS=1

cmake --build "$build" -j"$(nproc)"

if [ -z "${FASTCI_TEST_POSTGRES_URL:-}" ] && [ -x "$root/scripts/pg_test_server.sh" ]; then
  pg_dir=$(mktemp -d /tmp/fastci-pg.XXXXXX)
  if url=$("$root/scripts/pg_test_server.sh" start "$pg_dir"); then
    export FASTCI_TEST_POSTGRES_URL="$url"
    trap '"$root/scripts/pg_test_server.sh" stop "$pg_dir" >/dev/null 2>&1 || true' EXIT
  else
    echo "test: PostgreSQL could not be started; its tests will be skipped" >&2
  fi
fi

(cd "$build" && ctest --output-on-failure -j"$(nproc)")

if [ -d "$root/scripts/tests" ]; then
  "$build/venv/bin/python" -m pytest -q "$root/scripts/tests"
fi
