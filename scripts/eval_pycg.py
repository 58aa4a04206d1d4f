#!/usr/bin/env python3
"""Scores fastci's Python call graph on PyCG's micro-benchmark the way PyCG's own tests do.

For each case micro-benchmark/snippets/<category>/<case>/ it runs the built fastci-pycg-eval on
the case folder and compares with callgraph.json: sound = no expected edge missing, complete = no
extra edge. Prints per-category totals, failing cases, and edge TP/FP/FN.
"""
import json
import subprocess
import sys
from pathlib import Path


def edges(graph):
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: eval_pycg.py PYCG_CHECKOUT FASTCI_PYCG_EVAL_BINARY")
    snippets = Path(sys.argv[1]) / "micro-benchmark" / "snippets"
    binary = sys.argv[2]
    if not snippets.is_dir():
        sys.exit(f"{snippets}: not a PyCG checkout (no micro-benchmark/snippets)")
    totals = {"cases": 0, "sound": 0, "complete": 0, "tp": 0, "fp": 0, "fn": 0}
    for category in sorted(p for p in snippets.iterdir() if p.is_dir()):
        cases = sorted(p for p in category.iterdir() if (p / "callgraph.json").exists())
        sound = complete = 0
        failing = []
        for case in cases:
            expected = json.loads((case / "callgraph.json").read_text())
            run = subprocess.run([binary, str(case)], capture_output=True, text=True)
            if run.returncode != 0:
                failing.append(f"{case.name} (exit {run.returncode}: {run.stderr.strip()[:200]})")
                totals["fn"] += len(edges(expected))
                continue
            produced = json.loads(run.stdout)
            want, got = edges(expected), edges(produced)
            missing, extra = want - got, got - want
            totals["tp"] += len(want & got)
            totals["fp"] += len(extra)
            totals["fn"] += len(missing)
            sound += not missing
            complete += not extra
            if missing or extra:
                failing.append(f"{case.name}" + (" unsound" if missing else "") + (" incomplete" if extra else ""))
        totals["cases"] += len(cases)
        totals["sound"] += sound
        totals["complete"] += complete
        print(f"{category.name:14s} {len(cases):3d} cases  sound {sound:3d}  complete {complete:3d}"
              + (f"  failing: {', '.join(failing)}" if failing else ""))
    print(f"TOTAL {totals['cases']} cases: sound {totals['sound']}, complete {totals['complete']}; "
          f"edges TP {totals['tp']}, FP {totals['fp']}, FN {totals['fn']}")


if __name__ == "__main__":
    main()
