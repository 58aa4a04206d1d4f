#!/usr/bin/env bash
# Plans a change that reaches 4,020 of the 6,000 tests of a generated repository (100 test files x 2 x 30 parametrized
# cases; two files in three call the changed function) and renders the HTML report in headless
# Chromium: the page must load and draw, and the screenshot is kept for a human look.
# Usage: scripts/check_html_report.sh [BUILD_DIR] [SCREENSHOT.png]; quiet unless something fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="${1:-${FASTCI_BUILD_DIR:-$root/build}}"
work=$(mktemp -d /tmp/fastci-html.XXXXXX)
trap 'rm -rf "$work"' EXIT
shot="${2:-$work/report.png}"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "check_html_report: chromium missing (scripts/setup.sh installs it)" >&2; exit 1; }

repo="$work/repo"
mkdir -p "$repo/pkg" "$repo/tests"
cat > "$repo/pkg/__init__.py" <<'PY'
PY
cat > "$repo/pkg/core.py" <<'PY'
def compute(x):
    return x + 1


def other(x):
    return x - 1
PY
cases=$(seq -s ', ' 0 29)
for i in $(seq 0 99); do
  fn=$([ $((i % 3)) -eq 2 ] && echo other || echo compute)
  cat > "$repo/tests/test_module_$i.py" <<PY
import pytest

from pkg.core import $fn


@pytest.mark.parametrize("value", [$cases])
def test_value_$i(value):
    assert $fn(value) is not None


@pytest.mark.parametrize("value", [$cases])
def test_again_$i(value):
    assert $fn(value + 1) is not None
PY
done
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" -c user.name=fastci -c user.email=fastci@example.invalid commit -qm base
sed -i 's/return x + 1/return x + 2/' "$repo/pkg/core.py"
git -C "$repo" -c user.name=fastci -c user.email=fastci@example.invalid commit -qam change

"$build/cli/fastci-analyze" --repo "$repo" --base HEAD~1 --head HEAD --state-dir "$work/state" --no-evidence -q \
  --out "$work/plan.json" --report "$work/report.md" --html "$work/report.html"
selected=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(p["summary"]["selected"], p["summary"]["tests_total"])' "$work/plan.json")
[ "$selected" = "4020 6000" ] || { echo "check_html_report: expected 4020 of 6000 tests planned, got $selected" >&2; exit 1; }
[ "$(wc -c < "$work/report.md")" -le 60000 ] || { echo "check_html_report: report.md over 60,000 characters" >&2; exit 1; }

# The browser must render the page: a screenshot of the first screenful, and the DOM after scripts ran.
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1800 \
  --screenshot="$shot" "file://$work/report.html" >/dev/null 2>&1
[ -s "$shot" ] && [ "$(wc -c < "$shot")" -gt 20000 ] || { echo "check_html_report: no screenshot from $browser" >&2; exit 1; }
"$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$work/report.html" 2>/dev/null > "$work/dom.html"
grep -q 'id="search"' "$work/dom.html" && grep -q '4020 / 6000' "$work/dom.html" ||
  { echo "check_html_report: the rendered page lacks its search box or headline" >&2; exit 1; }
