#!/usr/bin/env bash
# Builds the example git repository from examples/minifw: commit "base" from base/, then commit
# "change" with head/ laid over it. Usage: scripts/make_example_repo.sh DEST
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: make_example_repo.sh DEST}
rm -rf "$dest"
mkdir -p "$dest"
cp -r "$root/examples/minifw/base/." "$dest/"
export GIT_AUTHOR_NAME=example GIT_AUTHOR_EMAIL=example@example.invalid
export GIT_COMMITTER_NAME=example GIT_COMMITTER_EMAIL=example@example.invalid
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
git -C "$dest" init -q -b main
git -C "$dest" add -A
git -C "$dest" commit -q -m "base"
git -C "$dest" tag base
cp -r "$root/examples/minifw/head/." "$dest/"
git -C "$dest" add -A
git -C "$dest" commit -q -m "moe: route to experts in a stable order"
git -C "$dest" tag change
echo "$dest"
