#!/usr/bin/env python3
"""Scores fastci's Python call graph on PyCG's micro-benchmark the way PyCG's own tests do.

For each case micro-benchmark/snippets/<category>/<case>/ it runs the built fastci-pycg-eval on
the case folder and compares with callgraph.json: sound = no expected edge missing, complete = no
extra edge. Prints per-category totals, failing cases, and edge TP/FP/FN.

With --jarvis, the checkout is Jarvis's (pythonJaRvis/pythonJaRvis.github.io, folder Jarvis/): its
micro-benchmark keeps the programs in dataset/micro_benchmark/<category>/<case>/ and the expected
graphs in ground_truth/micro_benchmark/<category>/<case>/callgraph.json. It was not used to tune
the resolver: it is the check that work on PyCG's cases generalizes.

With --command, another tool is scored the same way: TEMPLATE is run through the shell for each
case with {dir} (the case folder), {files} (its .py files) and {out} (where it must write the
PyCG-format JSON) filled in, e.g. PyCG itself or Jarvis:
  --command 'PYTHONPATH=PYCG python3.8 -m pycg {files} --package {dir} -o {out}'
  --command 'cd JARVIS_TOOL && python3.8 jarvis_cli.py {files} --package {dir} -o {out}'
"""
import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path


def edges(graph):
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


def produce(args, case):
    """(the finished process, the graph it produced or None)."""
    if not args.command:
        run = subprocess.run([args.binary, str(case)], capture_output=True, text=True)
        return run, json.loads(run.stdout) if run.returncode == 0 else None
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "graph.json"
        files = " ".join(shlex.quote(str(f)) for f in sorted(case.rglob("*.py")))
        command = args.command.format(dir=shlex.quote(str(case)), files=files, out=shlex.quote(str(out)))
        run = subprocess.run(command, shell=True, capture_output=True, text=True)
        return run, json.loads(out.read_text()) if run.returncode == 0 and out.exists() else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", help="PyCG checkout (or Jarvis's Jarvis/ folder with --jarvis)")
    parser.add_argument("binary", nargs="?", help="the built fastci-pycg-eval")
    parser.add_argument("--jarvis", action="store_true", help="score Jarvis's micro-benchmark instead")
    parser.add_argument("--command", metavar="TEMPLATE", help="score another tool (see above) instead of BINARY")
    args = parser.parse_args()
    checkout = Path(args.checkout)
    if args.jarvis:
        snippets = checkout / "dataset" / "micro_benchmark"
        truth = checkout / "ground_truth" / "micro_benchmark"
    else:
        snippets = truth = checkout / "micro-benchmark" / "snippets"
    if not args.binary and not args.command:
        sys.exit("give the fastci-pycg-eval binary or --command")
    if not snippets.is_dir() or not truth.is_dir():
        sys.exit(f"{checkout}: no {snippets.relative_to(checkout)} and {truth.relative_to(checkout)} there")
    totals = {"cases": 0, "sound": 0, "complete": 0, "tp": 0, "fp": 0, "fn": 0}
    for category in sorted(p for p in snippets.iterdir() if p.is_dir()):
        expected_dir = truth / category.name
        cases = sorted(p for p in category.iterdir() if (expected_dir / p.name / "callgraph.json").exists())
        sound = complete = 0
        failing = []
        for case in cases:
            expected = json.loads((expected_dir / case.name / "callgraph.json").read_text())
            run, produced = produce(args, case)
            if run.returncode != 0 or produced is None:
                failing.append(f"{case.name} (exit {run.returncode}: {run.stderr.strip()[-200:]})")
                totals["fn"] += len(edges(expected))
                continue
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
