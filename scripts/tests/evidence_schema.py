"""Checks records against docs/formats/evidence-jsonl.md (schema 1), as the ingester will read them."""

import json
import re

OUTCOMES = {"passed", "failed", "error", "skipped", "xfailed", "xpassed"}
ARGUMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*:")
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def _is_arcs(value):
    return isinstance(value, list) and all(
        isinstance(a, list) and len(a) == 2 and all(isinstance(n, int) for n in a) for a in value)


def _check_ranges(ranges):
    assert isinstance(ranges, list)
    previous = None
    for first_last in ranges:
        assert isinstance(first_last, list) and len(first_last) == 2, first_last
        first, last = first_last
        assert 1 <= first <= last, first_last
        assert previous is None or first > previous + 1, "ranges not sorted and merged: %r" % ranges
        previous = last


def check_record(record):
    kind = record["type"]
    if kind == "run":
        assert record["schema"] == 1
        assert isinstance(record["commit"], str)
        assert ISO_UTC.match(record["started_at"]), record["started_at"]
        assert isinstance(record["runner"], str) and isinstance(record["environment"], dict)
        assert record["collector"].startswith("fastci_pytest ")
        assert record["process"]["role"] in ("pytest", "worker")
    elif kind == "test":
        assert record["id"] and record["outcome"] in OUTCOMES
        assert isinstance(record["duration"], float) and record["duration"] >= 0
        assert isinstance(record["gpus"], int)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in record["knobs"].items())
        assert isinstance(record["message"], str)
    elif kind == "coverage":
        assert record["test"] and record["file"] and not record["file"].startswith("/")
        _check_ranges(record["lines"])
        assert _is_arcs(record["arcs"]) and record["arcs"] == sorted(record["arcs"])
    elif kind == "context":
        assert record["test"]
        assert "::" in record["function"]
        assert all("::" in c for c in record["callers"])
        assert all(ARGUMENT.match(p) for p in record["arguments"].split(";") if record["arguments"])
        assert _is_arcs(record["arcs"])
        assert isinstance(record["count"], int) and record["count"] >= 1
    else:
        raise AssertionError("unknown record type %r" % kind)


def read_file(path):
    """All records of one evidence file, checked; the first must be `run`."""
    with open(path, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    assert records and records[0]["type"] == "run", path
    assert all(r["type"] != "run" for r in records[1:]), path
    for record in records:
        check_record(record)
    return records
