#!/usr/bin/env bash
# The main job on the bundled example: builds a small framework repository with one change,
# runs fastci-analyze on it, and prints the report. Usage: scripts/run_example.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="${FASTCI_BUILD_DIR:-$root/build}"
out="$build/example"
repo=$("$root/scripts/make_example_repo.sh" "$out/repo")
"$build/cli/fastci-analyze" --repo "$repo" --base base --head change \
  --out "$out/plan.json" --report "$out/report.md"
cat "$out/report.md"
echo
echo "plan: $out/plan.json   report: $out/report.md"
echo "why a test was chosen: $build/cli/fastci --repo $repo explain 'tests/unit/test_router.py::TestTopKRouter::test_route_picks_largest[1]'"
