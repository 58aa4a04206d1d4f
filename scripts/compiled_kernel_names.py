#!/usr/bin/env python3
"""Kernel names as a CUDA compiler emits them, beside the C++ frontend's `__global__` symbols.

For every .cu file under the given folders of a repository this compiles the file with Clang in CUDA
device mode (the frontend's own flags and stub headers, `--cuda-host-only -fsyntax-only` swapped for
`--cuda-device-only -S`), reads the `.entry` names of the PTX (Itanium-mangled, exactly what a launch
reports), and asks `fastci-cpp-facts` for the kernel symbols the frontend gives the same unit. The JSON
it writes is what `evidence/kernel_name_test.cc` checks the name reduction against: every compiled
name must reduce to a kernel symbol of its unit.

  scripts/compiled_kernel_names.py --repo DeepSpeed --facts build/frontend/cpp/fastci-cpp-facts \\
      --out tests/data/kernels/deepspeed-edaa72212.json csrc

Needs clang++-19 with the NVPTX target and a CUDA toolkit (headers only: nothing is linked).
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

STUBS = Path(__file__).resolve().parent.parent / "frontend" / "cpp" / "stubs"
ENTRY = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(")
# CUDA 13 is newer than Clang 19 knows; Clang then omits the launch configuration call from the
# device-side declarations, which a `<<<>>>` in host code still needs to type-check.
DEVICE_PRELUDE = ('extern "C" int cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0, '
                  'cudaStream_t stream = 0);\n')


def frontend_flags(facts_bin, repo, source):
    out = subprocess.run([facts_bin, "--repo", str(repo), "--print-flags", str(source)], capture_output=True,
                         text=True, check=True).stdout.strip().splitlines()
    return shlex.split(out[-1])


def device_command(flags, ptx, prelude, arch):
    command = []
    for flag in flags:
        if flag == "--cuda-host-only":
            command += ["--cuda-device-only", f"--cuda-gpu-arch={arch}"]
        elif flag == "-fsyntax-only":
            command += ["-S", "-o", str(ptx), "-include", str(prelude)]
        elif flag.startswith("-isystem/fastci-stub-headers"):
            command.append("-isystem" + str(STUBS))
        else:
            command.append(flag)
    command[0] = "clang++-19"
    return command


def frontend_kernels(facts_bin, repo, source):
    run = subprocess.run([facts_bin, "--repo", str(repo), str(source)], capture_output=True, text=True)
    units = json.loads(run.stdout) if run.returncode == 0 and run.stdout.strip() else []
    kernels = sorted({s["id"] for u in units for s in u["symbols"] if s["kind"] == "kernel"})
    errors = sum(u.get("error_count", 0) for u in units)
    return kernels, errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, type=Path)
    parser.add_argument("--facts", required=True, help="the fastci-cpp-facts binary")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--arch", default="sm_80")
    parser.add_argument("--commit", default="", help="recorded in the output")
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    repo = args.repo.resolve()
    sources = sorted(p for folder in args.folders for p in (repo / folder).rglob("*.cu"))
    units = {}
    with tempfile.TemporaryDirectory() as scratch:
        prelude = Path(scratch) / "device_prelude.h"
        prelude.write_text(DEVICE_PRELUDE)
        for i, source in enumerate(sources, 1):
            relative = source.relative_to(repo).as_posix()
            ptx = Path(scratch) / "unit.ptx"
            command = device_command(frontend_flags(args.facts, repo, source), ptx, prelude, args.arch)
            compiled = subprocess.run(command, capture_output=True, text=True, cwd=repo)
            names = sorted(set(ENTRY.findall(ptx.read_text()))) if compiled.returncode == 0 else []
            kernels, errors = frontend_kernels(args.facts, repo, source)
            first_error = next((l for l in compiled.stderr.splitlines() if "error:" in l), "")
            units[relative] = {"compiled": compiled.returncode == 0, "compile_error": first_error.replace(str(repo) + "/", ""),
                               "entries": names, "frontend_errors": errors, "frontend_kernels": kernels}
            if sys.stderr.isatty():
                print(f"\r[{i}/{len(sources)}] {relative}", end="", file=sys.stderr, flush=True)
            if ptx.exists():
                ptx.unlink()
    if sys.stderr.isatty():
        print(file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    document = {"repository": repo.name, "commit": args.commit, "arch": args.arch,
                "command": "scripts/compiled_kernel_names.py " + " ".join(args.folders), "units": units}
    args.out.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    compiled = [u for u in units.values() if u["compiled"]]
    print(f"{len(compiled)}/{len(units)} units compiled in device mode, "
          f"{sum(len(u['entries']) for u in compiled)} kernel entries", file=sys.stderr)


if __name__ == "__main__":
    main()
