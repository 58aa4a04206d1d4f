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

# cmake --install to a temporary prefix and the Debian package, checked with the bundled example.
FASTCI_BUILD_DIR="$build" "$root/scripts/check_install.sh"

# The example pipelines of docs/ci/ and the emitted child pipeline, against the CI schemas.
"$root/scripts/check_pipelines.sh" "$build"
# The reports of a 4,020-test plan: Markdown within a comment's size, HTML drawn by headless Chromium.
"$root/scripts/check_html_report.sh" "$build"

if [ -d "$root/scripts/tests" ]; then
  # The checkout's plugin first on the path, also ahead of a pip-installed copy's pytest11 entry point.
  PYTHONPATH="$root/scripts" "$build/venv/bin/python" -m pytest -q "$root/scripts/tests"
  # Then the plugin as users get it: pip-installed into the venv, the suite run against that copy.
  FASTCI_BUILD_DIR="$build" "$root/scripts/check_plugin_pythons.sh" --venv "$build/venv"
fi
