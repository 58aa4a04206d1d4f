#!/usr/bin/env python3
"""Fails when README.md's synopsis of a command leaves out an option that the command's --help lists.

Usage: check_readme_synopsis.py README.md FASTCI_ANALYZE FASTCI FASTCI_SHRINK
Each command's synopsis is the first code block after its "### <name>" heading; every subcommand of
`fastci` (and `fastci evidence`) is checked against the same block. Only the standard library is used.
"""
import re
import subprocess
import sys

OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def synopsis(readme, heading):
    match = re.search(r"^### " + re.escape(heading) + r"\s*$(.*?)^```\w*\n(.*?)^```", readme, re.S | re.M)
    if not match:
        sys.exit("README.md: no code block under '### %s'" % heading)
    return match.group(2)


def help_options(command):
    text = subprocess.run(command + ["--help"], capture_output=True, text=True).stdout
    options = set()
    in_options = False
    for line in text.splitlines():
        if line.strip().endswith(":"):
            in_options = line.strip() in ("Options:", "OPTIONS:")
            continue
        if in_options and line.startswith("  -"):
            options.update(OPTION.findall(line.split("  ", 2)[1] if "  " in line[2:] else line))
    options.discard("--help")
    subcommands = []
    in_subcommands = False
    for line in text.splitlines():
        if line.strip() in ("Subcommands:", "SUBCOMMANDS:"):
            in_subcommands = True
            continue
        if in_subcommands:
            if not line.startswith("  "):
                break
            subcommands.append(line.split()[0])
    return options, subcommands


def check(readme, heading, command, missing):
    block = synopsis(readme, heading)
    queue = [command]
    while queue:
        current = queue.pop()
        options, subcommands = help_options(current)
        for option in sorted(options):
            if option not in block:
                missing.append("%s: %s" % (" ".join([heading] + current[1:]), option))
        for sub in subcommands:
            if sub not in block:
                missing.append("%s: subcommand %s" % (heading, sub))
            queue.append(current + [sub])


def main():
    readme_path, analyze, fastci, shrink = sys.argv[1:5]
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    missing = []
    check(readme, "fastci-analyze", [analyze], missing)
    check(readme, "fastci", [fastci], missing)
    check(readme, "fastci-shrink", [shrink], missing)
    if missing:
        print("README.md synopsis lacks what --help lists:\n  " + "\n  ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
