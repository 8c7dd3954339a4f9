"""What zdash says about a live pool, for the `zfs` tests: `zdash check --json` through the real
CLI entry point (in-process), and the findings filtered the way the tests ask about them."""

from __future__ import annotations

import contextlib
import io
import json

from zdash.cli import main


def check(*pools, samples=3, interval=1.0, timeout=None):
    """`zdash check --json` in-process: a fresh interpreter per call costs ~15 s of imports in
    the emulated VM."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        limit = ["--timeout", str(timeout)] if timeout is not None else []
        rc = main(["check", "--json", "--samples", str(samples), "--interval", str(interval), *limit, *pools])
    doc = json.loads(out.getvalue())
    assert doc["exit_code"] == rc
    return doc


def found(doc, check_id, subject=None, severity=None, topic=None):
    return [
        f
        for f in doc["findings"]
        if f["check"] == check_id
        and (subject is None or f["subject"] == subject)
        and (severity is None or f["severity"] == severity)
        and (topic is None or f["topic"] == topic)
    ]


def above_info(doc):
    return [f for f in doc["findings"] if f["severity"] != "info"]


def titles(findings):
    """One line per finding, for assertion messages."""
    return [f"{f['severity']} {f['check']} {f['subject']}: {f['title']}" for f in findings]
