"""The pool summary table of the TrueNAS/FreeNAS report script (dak180/FreeNAS-Report, the
report.sh family) pasted from its HTML mail as text: one pool per row, cells between `|`, the
header row often lost (corpus 201). The script fixes its columns ("ZPool Status Report Summary"):
pool name; status (`zpool list -o health`, "Resilvered" glued on when the last scan was a
resilver); size, allocated and free (`zpool list`); frag %; used % (`zpool list -p -o
capacity`); read, write and checksum errors summed over every row of `zpool status`; scrub
repaired bytes; scrub errors; last scrub age in days (by the script's clock); last scrub time.

Read as the pool rows `zpool list` would give: health, size, alloc, free, frag and cap, which
the script took from zpool list itself. Its error sums are tied to no device and its scrub age
to the script's clock, not the paste's: not read as findings (a note names non-zero sums).
"""

from __future__ import annotations

import re

from zdash.parse import ParseError
from zdash.paste.zpool_list import ListEntry, ListValues, headerless_values

CELLS = 14
_NAME = re.compile(r"[A-Za-z][\w.:-]{0,255}")  # a pool's name as zpool allows it
_STATUS = re.compile(r"(ONLINE|DEGRADED|FAULTED|OFFLINE|UNAVAIL|REMOVED|SUSPENDED)\s*(?:Resilvered)?")
_ERRORS = re.compile(r"[0-9]{1,4}|>1K")
_HUMAN = re.compile(r"[0-9]{1,4}(?:[.,][0-9]{1,3})?[KMGTPEZ]")
_PCT = re.compile(r"[0-9]{1,3}%")
_COLUMNS = ["HEALTH", "SIZE", "ALLOC", "FREE", "FRAG", "CAP"]


def report_row(line: str) -> tuple[str, ListValues, tuple[str, ...]] | None:
    """(pool, its zpool list values, its error sums) of a summary row; None for any other line."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != CELLS or not _NAME.fullmatch(cells[0]):
        return None
    status = _STATUS.fullmatch(cells[1])
    errors = tuple(cells[7:10])
    if status is None or not all(_ERRORS.fullmatch(e) for e in errors):
        return None
    # the script prints zpool list's human sizes and its percentages with their sign
    if not all(_HUMAN.fullmatch(c) for c in cells[2:5]) or not all(_PCT.fullmatch(c) for c in cells[5:7]):
        return None
    try:
        values = headerless_values((status[1], *cells[2:7]), _COLUMNS)
    except ParseError:
        return None
    return (cells[0], values, errors) if values is not None else None


def take_report(lines: list[str], i: int) -> tuple[int, list[ListEntry], list[str]]:
    """The summary rows from lines[i] on: one pool row each, and notes on their error sums."""
    entries: list[ListEntry] = []
    notes: list[str] = []
    j = i
    while j < len(lines) and (got := report_row(lines[j])) is not None:
        name, values, errors = got
        entries.append(ListEntry(j + 1, 0, name, values=values))
        if any(e != "0" for e in errors):
            notes.append(
                f"pool {name}: the report script's table (line {j + 1}) sums read/write/checksum "
                f"errors over every row of zpool status ({'/'.join(errors)}); which device they "
                "are on is not in it: paste `zpool status -v`"
            )
        j += 1
    return j, entries, notes
