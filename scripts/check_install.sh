#!/usr/bin/env bash
# Checks what `cmake --install` and `cpack -G DEB` make of a build: installs it to a temporary prefix, plans
# the bundled example with the installed fastci-analyze and expects the build tree's plan, runs the installed
# fastci-shrink on its installed data, preloads the installed launch interposer, imports the shipped pytest
# plugin, then builds the Debian package and checks its declared dependencies resolve.
# Prints one line when everything holds. Usage: scripts/check_install.sh   (FASTCI_BUILD_DIR, default build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="${FASTCI_BUILD_DIR:-$root/build}"
work=$(mktemp -d /tmp/fastci-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

fail() { echo "check_install: $*" >&2; exit 1; }
# Runs a command quietly; on failure shows its output and stops.
quiet() { "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; fail "failed: $*"; }; }
# quiet, with standard output kept in the file named first.
quiet_to() { local out=$1; shift; "$@" >"$out" 2>"$work/log" || { cat "$work/log" >&2; fail "failed: $*"; }; }

quiet cmake --install "$build" --prefix "$prefix"
for file in bin/fastci bin/fastci-analyze bin/fastci-shrink share/fastci/workload/knobs.toml \
            share/fastci/python/fastci_pytest/pyproject.toml share/fastci/python/fastci_pytest/fastci-version; do
  [ -e "$prefix/$file" ] || fail "not installed: $file"
done

# The example's plan: the installed binary and the build tree's agree on everything but the timings.
repo=$("$root/scripts/make_example_repo.sh" "$work/repo")
plan() { "$1" --repo "$repo" --base base --head change --out "$2" --no-cache -q; }
plan "$build/cli/fastci-analyze" "$work/build-plan.json"
plan "$prefix/bin/fastci-analyze" "$work/installed-plan.json"
python3 - "$work/build-plan.json" "$work/installed-plan.json" <<'EOF'
import json, sys
build, installed = (json.load(open(path)) for path in sys.argv[1:])
for plan in (build, installed):
    plan["summary"].pop("analysis")  # timings and cache counts
if build != installed:
    sys.exit("check_install: the installed fastci-analyze planned the example differently from the build tree's")
if not build["tests"]:
    sys.exit("check_install: the example's plan selects no test")
EOF

# Workload data: the installed fastci-shrink reads share/fastci/workload, not the source tree.
config="$root/tests/fixtures/workload/megatron/test_cases/gpt/tiny_tp2_pp2/model_config.yaml"
quiet_to "$work/build-shrink.json" "$build/planner/workload/fastci-shrink" --format json "$config"
mv "$prefix/share/fastci/workload" "$work/workload"
if "$prefix/bin/fastci-shrink" "$config" >"$work/log" 2>&1; then fail "fastci-shrink ran without its installed data"; fi
grep -q "$prefix/share/fastci/workload/knobs.toml" "$work/log" || { cat "$work/log" >&2; fail "fastci-shrink did not look under its prefix"; }
mv "$work/workload" "$prefix/share/fastci/workload"
quiet_to "$work/installed-shrink.json" "$prefix/bin/fastci-shrink" --format json "$config"
cmp -s "$work/build-shrink.json" "$work/installed-shrink.json" || fail "the installed fastci-shrink proposes differently"

# The launch interposer, where this build has one: loads into a program that never touches CUDA.
interposer=""
if [ -e "$build/cuda/libfastci_launch.so" ]; then
  interposer="$prefix/lib/fastci/libfastci_launch.so"
  [ -e "$interposer" ] || fail "not installed: lib/fastci/libfastci_launch.so"
  LD_PRELOAD="$interposer" /bin/true || fail "libfastci_launch.so does not preload"
  nm -D --defined-only "$interposer" | grep -qw cudaLaunchKernel || fail "libfastci_launch.so exports no cudaLaunchKernel"
fi

# The C++/CUDA frontend, where this build has one: a plugin in lib/fastci/ that loads with its Clang and
# LLVM, which the installed binaries do not map until they parse a C++ unit.
if [ -e "$build/frontend/cpp/libfastci_cpp_frontend.so" ]; then
  frontend="$prefix/lib/fastci/libfastci_cpp_frontend.so"
  [ -e "$frontend" ] || fail "not installed: lib/fastci/libfastci_cpp_frontend.so"
  python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1]).fastci_cpp_frontend_plugin' "$frontend" >"$work/log" 2>&1 ||
    { cat "$work/log" >&2; fail "libfastci_cpp_frontend.so does not load"; }
  if ldd "$prefix/bin/fastci-analyze" | grep -q 'libclang-cpp'; then fail "fastci-analyze links Clang itself"; fi
fi

# The shipped plugin sources know fastci's version without a checkout around them.
version=$(sed -n 's/^project(fastci VERSION \([^ )]*\).*/\1/p' "$root/CMakeLists.txt")
shipped=$(cd "$work" && PYTHONPATH="$prefix/share/fastci/python" python3 -c \
  'import fastci_pytest; print(fastci_pytest.__version__)')
[ "$shipped" = "$version" ] || fail "shipped fastci_pytest says version '$shipped', fastci is $version"

# The Debian package: built from the same install rules, its dependencies declared and resolvable.
quiet cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb"
deb=$(ls "$work"/deb/fastci_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for library in libgit2 libllvm libclang-cpp libsqlite3 libclang-common; do
  case "$depends" in *"$library"*) ;; *) fail "$deb does not depend on $library: $depends" ;; esac
done
resolved="not checked (no apt lists)"
if compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
  # against an empty package database, as on a machine with nothing installed
  : >"$work/empty-status"
  quiet apt-get -o Dir::State::status="$work/empty-status" install --dry-run --no-install-recommends "$deb"
  resolved="$(grep -c '^Inst' "$work/log") packages resolved from nothing"
fi

echo "check_install: ok: installed plan = build plan ($(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tests"]))' \
  "$work/build-plan.json") tests), shrink data from share/fastci${interposer:+, interposer preloads}, plugin $shipped, \
$(basename "$deb"): $resolved"
