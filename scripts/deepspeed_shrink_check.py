#!/usr/bin/env python3
"""Shrunk DeepSpeed tests against their evidence: each test runs at its own world_size and at a smaller
one, under fastci's pytest plugin; the two runs' evidence (functions executed, their contexts) and
times go to `fastci-shrink --deepspeed-inventory`, which shrinks a test only where the evidence is
the same and the shrunk run passed.

Usage (in a DeepSpeed work tree whose CPU tests run, see docs/workload.md):
  scripts/deepspeed_shrink_check.py --deepspeed DIR --shims DIR --extensions DIR --out DIR \
      [--fastci-shrink PATH] [--size N] TEST [TEST ...]
TEST is a node id below tests/ (unit/comm/test_dist.py::TestInit::test).
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))


def run_pytest(args, test, evidence=None, world_size=None, junit=None):
    """One pytest run of one test in DeepSpeed's tests/ folder; returns (exit code, wall seconds)."""
    env = dict(os.environ)
    # DeepSpeed picks its rendezvous port from 29500 + 1000 x the xdist worker number: a separate range
    # keeps these runs apart from any other DeepSpeed test run on the machine
    env.update({"LOCAL_SIZE": "4", "TORCH_EXTENSIONS_DIR": args.extensions, "PYTEST_XDIST_WORKER": "gw%d" % args.port_slot,
                "PYTHONPATH": os.pathsep.join([HERE, args.shims, os.path.abspath(args.deepspeed)])})
    command = [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "fastci_pytest", test]
    if evidence:
        command.append("--fastci-evidence=%s" % evidence)
    if world_size:
        command.append("--fastci-world-size=tests/%s=%d" % (test, world_size))
    if junit:
        command.append("--junitxml=%s" % junit)
    start = time.monotonic()
    result = subprocess.run(command, cwd=os.path.join(args.deepspeed, "tests"), env=env,
                            capture_output=True, text=True, timeout=args.timeout)
    if result.returncode not in (0, 1):
        sys.stderr.write(result.stdout[-2000:] + result.stderr[-2000:])
    return result.returncode, time.monotonic() - start


def junit_seconds(path):
    """Test time (setup + call + teardown as pytest reports it) of the one test in a JUnit file."""
    cases = ElementTree.parse(path).getroot().iter("testcase")
    return sum(float(case.get("time", 0)) for case in cases)


def read_evidence(directory, test_id):
    """Functions executed, context keys, outcome and declared GPUs of one test, over every process."""
    functions, contexts, outcome, gpus = set(), set(), "unknown", 0
    for path in glob.glob(os.path.join(directory, "*.jsonl")):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                if record.get("test") != test_id and record.get("id") != test_id:
                    continue
                if record["type"] == "context":
                    functions.add(record["function"])
                    contexts.add("%s|%s|%s" % (record["function"], ",".join(record.get("callers", [])),
                                               record.get("arguments", "")))
                elif record["type"] == "test":
                    outcome, gpus = record["outcome"], record.get("gpus", 0)
    return functions, contexts, outcome, gpus


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deepspeed", required=True, help="DeepSpeed work tree")
    parser.add_argument("--shims", required=True, help="folder of stand-ins for packages Debian lacks")
    parser.add_argument("--extensions", required=True, help="TORCH_EXTENSIONS_DIR (JIT-built ops)")
    parser.add_argument("--out", required=True, help="folder for evidence, runs.json and the proposals")
    parser.add_argument("--fastci-shrink", default=os.path.join(HERE, "..", "build", "planner", "workload",
                                                                "fastci-shrink"))
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--size", type=int, default=1, help="the smaller world_size to try (default 1)")
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--port-slot", type=int, default=7, help="DeepSpeed port range 29500 + 1000 x SLOT (default 7)")
    parser.add_argument("tests", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    runs, inventory, table = [], [], []
    for number, test in enumerate(args.tests):
        test_id = "tests/" + test
        sizes = {}
        for label, world_size in (("original", None), ("shrunk", args.size)):
            evidence = os.path.join(args.out, "evidence-%d-%s" % (number, label))
            run_pytest(args, test, evidence=evidence, world_size=world_size)
            junit = os.path.join(args.out, "timing-%d-%s.xml" % (number, label))
            code, wall = run_pytest(args, test, world_size=world_size, junit=junit)
            functions, contexts, outcome, gpus = read_evidence(evidence, test_id)
            seconds = junit_seconds(junit)
            sizes[label] = (functions, contexts, outcome, gpus, seconds, wall)
            sys.stderr.write("%s %s: world_size %s, %s, %d functions, %d contexts, %.1f s (pytest %.1f s)\n" %
                             (test, label, gpus, outcome, len(functions), len(contexts), seconds, wall))
            # A failing run proves nothing about the smaller size: it is not evidence.
            if outcome == "passed":
                runs.append({"test": test, "knobs": {"world_size": str(gpus)}, "covered_symbols": sorted(functions),
                             "context_keys": sorted(contexts), "kernels": [], "seconds": seconds, "gpus": gpus})
        original, shrunk = sizes["original"], sizes["shrunk"]
        inventory.append({"nodeid": test, "world_size": original[3], "world_size_source": "declared by the test"})
        table.append({"test": test, "world_size": [original[3], shrunk[3]], "outcome": [original[2], shrunk[2]],
                      "functions": [len(original[0]), len(shrunk[0])],
                      "same_functions": original[0] == shrunk[0], "same_contexts": original[1] == shrunk[1],
                      "only_at_original": sorted(original[0] - shrunk[0])[:5],
                      "seconds": [round(original[4], 2), round(shrunk[4], 2)]})
    with open(os.path.join(args.out, "runs.json"), "w", encoding="utf-8") as handle:
        json.dump({"runs": runs}, handle, indent=1)
    with open(os.path.join(args.out, "inventory.jsonl"), "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(entry) + "\n" for entry in inventory)
    with open(os.path.join(args.out, "comparison.json"), "w", encoding="utf-8") as handle:
        json.dump(table, handle, indent=1)
    proposals = subprocess.run([args.fastci_shrink, "--deepspeed-inventory", os.path.join(args.out, "inventory.jsonl"),
                                "--sized-runs", os.path.join(args.out, "runs.json"), "--mode", "exact"],
                               capture_output=True, text=True)
    sys.stdout.write(proposals.stdout)
    sys.stderr.write(proposals.stderr)
    return proposals.returncode


if __name__ == "__main__":
    sys.exit(main())
