#!/usr/bin/env bash
# Installs everything fastci needs on Debian 12 and builds it. Safe to run again: each step
# checks what is already there. Usage: scripts/setup.sh [--no-build]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="${FASTCI_BUILD_DIR:-$root/build}"
deps="$root/.deps"

LLVM_VERSION=19
TS_PYTHON_VERSION=0.23.6
TS_PYTHON_SHA256=354bfa0a2f9217431764a631516f85173e9711af2c13dbd796a8815acfe505d9

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates python3-venv python3-pip
  "clang-$LLVM_VERSION" "libclang-$LLVM_VERSION-dev" "libclang-cpp$LLVM_VERSION-dev" "llvm-$LLVM_VERSION-dev"
  libtree-sitter-dev libboost-graph-dev libsqlite3-dev libgit2-dev libcli11-dev libtomlplusplus-dev
  nlohmann-json3-dev libsimdjson-dev libyaml-cpp-dev libxxhash-dev libpqxx-dev libexpat1-dev zlib1g-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev graphviz postgresql chromium fonts-liberation
)

say() { printf 'setup: %s\n' "$*"; }

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then say "Debian packages present"; return; fi
  say "installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

fetch_grammar() {
  local dir="$deps/tree-sitter-python-$TS_PYTHON_VERSION"
  if [ -f "$dir/src/parser.c" ]; then say "tree-sitter-python $TS_PYTHON_VERSION present"; return; fi
  mkdir -p "$deps"
  local archive="$deps/tree_sitter_python-$TS_PYTHON_VERSION.tar.gz"
  if [ ! -f "$archive" ]; then
    say "downloading tree-sitter-python $TS_PYTHON_VERSION sources"
    python3 -m pip download --quiet --no-deps --no-binary :all: \
      "tree-sitter-python==$TS_PYTHON_VERSION" -d "$deps"
  fi
  echo "$TS_PYTHON_SHA256  $archive" | sha256sum --check --quiet
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  tar xzf "$archive" -C "$dir.tmp" --strip-components=1
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

python_env() {
  local venv="$build/venv"
  if [ ! -x "$venv/bin/python" ]; then
    say "creating $venv"
    python3 -m venv "$venv"
  fi
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$root/scripts/requirements-test.txt"
}

configure_and_build() {
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFASTCI_TREE_SITTER_PYTHON_DIR="$deps/tree-sitter-python-$TS_PYTHON_VERSION" >/dev/null
  cmake --build "$build" -j"$(nproc)"
}

install_packages
fetch_grammar
python_env
[ "${1:-}" = "--no-build" ] || configure_and_build
say "done"
