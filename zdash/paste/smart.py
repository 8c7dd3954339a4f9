"""SMART in a paste: smartd's log lines and `smartctl -a` / `-x` text beside zpool's output, as
samples the builder reads (zdash.parse.smart_text) into the snapshot's SMART evidence.

A forum post often holds the fault only there: zpool says every disk is ONLINE 0 0 0 while
smartd logs 146 offline-uncorrectable sectors on /dev/sde. Which pool member /dev/sde is the
paste rarely says (zpool prints by-id names, smartd kernel names): the SMART check says so
and how to find out. smartctl's text carries the disk's serial, which by-id names hold.
"""

from __future__ import annotations

import itertools
import re

from zdash.parse.smart_text import parse_smartctl_text, parse_smartd_line, smartctl_line
from zdash.paste.merge import Run
from zdash.raw import RawSample

SMARTD_ARGV = ("smartd",)
# Where one disk's smartctl text begins: its command line, or smartctl's banner when the
# command was not pasted (then the next block's banner ends it).
_START = re.compile(r"\bsmartctl\s+(?:-\S+\s+)*/dev/\S+|^\s*smartctl \d+\.\d+ ")


def smart_samples(run: Run) -> tuple[RawSample, ...]:
    """The paste's smartd lines as one sample, each disk's smartctl text as another; the lines
    they hold are used (no longer "not read")."""
    lines = run.doc.lines
    smartd = [n for n, line in enumerate(lines, 1) if parse_smartd_line(line) is not None]
    samples: list[RawSample] = []
    if smartd:
        samples.append(RawSample("smartd", SMARTD_ARGV, 0, "".join(lines[n - 1] + "\n" for n in smartd)))
        _use(run, smartd)
    starts = [n for n, line in enumerate(lines, 1) if _START.search(line) and n not in smartd]
    bounds = [*starts, len(lines) + 1] if starts else [1, len(lines) + 1]
    for i, (first, end) in enumerate(itertools.pairwise(bounds)):
        block = [n for n in range(first, end) if n not in smartd and n not in run.used]
        text = "".join(lines[n - 1] + "\n" for n in block)
        report = parse_smartctl_text(text) if text.strip() else None
        if report is None:
            continue
        held = [n for n in block if smartctl_line(lines[n - 1]) or _START.search(lines[n - 1])]
        samples.append(RawSample(f"smarttext:{i}", ("smartctl", "-a", report.device), 0, text))
        _use(run, held)
    return tuple(samples)


def _use(run: Run, numbers: list[int]) -> None:
    """Lines read as SMART: used, and off the "not read" list the split may have put them on."""
    taken = set(numbers)
    run.used |= taken
    run.unread = [u for u in run.unread if u.line not in taken]
