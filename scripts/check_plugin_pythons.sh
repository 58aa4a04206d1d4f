#!/usr/bin/env bash
# The pytest plugin as users get it: a wheel built from scripts/fastci_pytest, pip-installed, and the plugin's
# own tests (scripts/tests) run against that installed copy (FASTCI_PYTEST_INSTALLED=1, nothing on PYTHONPATH).
#
#   scripts/check_plugin_pythons.sh [MINOR...]   a fresh venv per CPython that pyenv has (default 3.10 to 3.13),
#                                                with the current pytest, pytest-xdist and coverage from PyPI
#   scripts/check_plugin_pythons.sh --venv DIR   into an existing venv instead (scripts/test.sh: build/venv)
#
# Needs PyPI (setuptools for the build; the test tools for fresh venvs). The end-to-end tests use the binaries
# of FASTCI_BUILD_DIR (default build/) and are skipped where those are not built. Prints one line per Python.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/fastci-plugin.XXXXXX)
trap 'rm -rf "$work"' EXIT
pip_quiet=(--quiet --disable-pip-version-check)
# absolute: the tests run from a folder of their own
FASTCI_BUILD_DIR=$(realpath -m "${FASTCI_BUILD_DIR:-$root/build}")
export FASTCI_BUILD_DIR

fail() { echo "check_plugin_pythons: $*" >&2; exit 1; }

# The wheel, built once from a checkout-shaped copy: a fresh tree holds no earlier build's leftovers
# (setuptools packs whatever an old build/lib still has), and _version.py finds CMakeLists.txt two folders up.
build_wheel() {
  local python=$1
  mkdir -p "$work/src/scripts/fastci_pytest"
  cp "$root/CMakeLists.txt" "$work/src/"
  cp "$root"/scripts/fastci_pytest/*.py "$root/scripts/fastci_pytest/pyproject.toml" "$work/src/scripts/fastci_pytest/"
  "$python" -m pip wheel "${pip_quiet[@]}" --no-deps -w "$work/wheel" "$work/src/scripts/fastci_pytest" \
    >"$work/wheel.log" 2>&1 || { cat "$work/wheel.log" >&2; fail "building the wheel failed"; }
  wheel=$(ls "$work"/wheel/fastci_pytest-*.whl)
}

# Installs the wheel into a venv and runs scripts/tests against it; prints the summary line.
install_and_test() {
  local venv python log
  venv=$(cd "$1" && pwd) python="$venv/bin/python" log="$work/pytest-$(basename "$venv").log"
  [ -n "${wheel:-}" ] || build_wheel "$python"
  # --force-reinstall of this package only: the same version number may hold other code than last time
  "$python" -m pip install "${pip_quiet[@]}" "$wheel" && \
    "$python" -m pip install "${pip_quiet[@]}" --no-deps --force-reinstall "$wheel" || fail "pip install into $venv failed"
  local versions
  versions=$("$python" -c 'import sys, pytest, coverage, fastci_pytest
print("Python %s, pytest %s, coverage %s, fastci_pytest %s" % (sys.version.split()[0], pytest.__version__,
      coverage.__version__, fastci_pytest.__version__))')
  # from a folder of its own: the working folder is on sys.path under `python -m`
  if (cd "$work" && FASTCI_PYTEST_INSTALLED=1 "$python" -m pytest -q -p no:cacheprovider "$root/scripts/tests") \
      >"$log" 2>&1; then
    echo "$versions: $(tail -n 1 "$log" | tr -d '=')"
  else
    cat "$log" >&2
    echo "$versions: FAILED" >&2
    return 1
  fi
}

if [ "${1:-}" = "--venv" ]; then
  [ -x "${2:-}/bin/python" ] || fail "--venv expects a virtual environment folder"
  install_and_test "$2"
  exit
fi

command -v pyenv >/dev/null || fail "pyenv is not installed"
minors=("$@")
[ ${#minors[@]} -gt 0 ] || minors=(3.10 3.11 3.12 3.13)
status=0
for minor in "${minors[@]}"; do
  # the newest release of that minor version that pyenv has (no -dev builds, no virtualenvs)
  version=$(pyenv versions --bare | grep -E "^${minor//./\\.}\.[0-9]+$" | sort -t. -k3 -n | tail -n 1 || true)
  if [ -z "$version" ]; then echo "Python $minor: not installed under pyenv, skipped"; continue; fi
  venv="$work/venv-$minor"
  "$(pyenv root)/versions/$version/bin/python" -m venv "$venv"
  "$venv/bin/python" -m pip install "${pip_quiet[@]}" --upgrade pytest pytest-xdist coverage \
    || fail "installing pytest and coverage for Python $version failed"
  install_and_test "$venv" || status=1
done
exit $status
