#!/usr/bin/env bash
# Validates the example pipelines of docs/ci/ and the child pipeline fastci-analyze emits for the
# bundled example against the GitHub workflow and GitLab CI schemas (check-jsonschema's vendored
# copies: no network). Usage: scripts/check_pipelines.sh [BUILD_DIR]; quiet unless something fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="${1:-${FASTCI_BUILD_DIR:-$root/build}}"
check="$build/venv/bin/check-jsonschema"
[ -x "$check" ] || { echo "check_pipelines: $check missing (scripts/setup.sh installs it)" >&2; exit 1; }
work=$(mktemp -d /tmp/fastci-pipelines.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$check" -q --builtin-schema vendor.github-workflows "$root/docs/ci/github-actions.yml"
"$check" -q --builtin-schema vendor.gitlab-ci "$root/docs/ci/gitlab-ci.yml"

# What the analyzer emits for a real change, and for a change that selects nothing.
"$root/scripts/make_example_repo.sh" "$work/repo" >/dev/null
analyze=("$build/cli/fastci-analyze" --repo "$work/repo" --state-dir "$work/state" --no-evidence -q)
"${analyze[@]}" --base base --head change --out "$work/plan.json" --emit gitlab-pipeline --emit-file "$work/child.yml"
"$check" -q --builtin-schema vendor.gitlab-ci "$work/child.yml"
# With an audit of every skipped test: a later stage whose jobs may fail.
"${analyze[@]}" --base base --head change --out "$work/audit.json" --audit-skipped 100% --emit gitlab-pipeline \
  --emit-file "$work/audit.yml"
"$check" -q --builtin-schema vendor.gitlab-ci "$work/audit.yml"
grep -q "^fastci-audit-1:" "$work/audit.yml" || { echo "check_pipelines: --audit-skipped 100% emitted no audit job" >&2; exit 1; }
# A later step of the same job explains a test from the plan the state folder holds.
"$build/cli/fastci" --repo "$work/repo" explain --state-dir "$work/state" \
  "tests/unit/test_router.py::TestTopKRouter::test_weights_normalised" > "$work/explain.txt"
grep -q "SELECTED for" "$work/explain.txt" || { echo "check_pipelines: fastci explain --state-dir found no plan" >&2; exit 1; }
# An empty plan: a commit without the always-run list, planned against itself.
git -C "$work/repo" checkout -q -b quiet change
sed -i '/^always_run/d' "$work/repo/pyproject.toml"
git -C "$work/repo" -c user.name=fastci -c user.email=fastci@example.invalid commit -qam "no always-run tests"
"${analyze[@]}" --base quiet --head quiet --out "$work/empty.json" --emit gitlab-pipeline --emit-file "$work/empty.yml"
"$check" -q --builtin-schema vendor.gitlab-ci "$work/empty.yml"
"${analyze[@]}" --base quiet --head quiet --out "$work/empty.json" --emit github-matrix --emit-file "$work/outputs"
grep -qx 'has_tests=false' "$work/outputs" || { echo "check_pipelines: empty plan without has_tests=false" >&2; exit 1; }
