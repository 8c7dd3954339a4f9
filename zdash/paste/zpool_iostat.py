"""A pasted human `zpool iostat [-v] [-l] [-q] [-p]` report into rows, and those into the
`zpool iostat -v -H -p [-l]` layout the iostat parser reads.

The two header lines name the columns: `capacity operations bandwidth` (every release), then
with -l `total_wait disk_wait syncq_wait asyncq_wait scrub` (0.7), `trim` (0.8+), `rebuild`
(2.2+), with -q the queue groups, and -c script columns under no group. Depth is the rank of
the row's indentation; `logs`/`cache`/`special`/`dedup` rows full of dashes open a class; dash
lines separate pools and reports. An interval paste holds several reports: the last one of each
pool is kept (the first is the average since import, §2.1). `-w`/`-r` histograms are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from zdash.parse import ParseError
from zdash.paste.table import (
    CLASS_WORDS,
    Row,
    Unreadable,
    count,
    is_class_row,
    is_dashes,
    latency,
    looks_like_row,
    num,
    ranks,
    row,
    size,
    unmarked,
)

LATENCY = (
    "total_wait_read",
    "total_wait_write",
    "disk_wait_read",
    "disk_wait_write",
    "syncq_wait_read",
    "syncq_wait_write",
    "asyncq_wait_read",
    "asyncq_wait_write",
    "scrub_wait",
    "trim_wait",
    "rebuild_wait",
)
_RATES = ("operations_read", "operations_write", "bandwidth_read", "bandwidth_write")
_NS = re.compile(r"[0-9]{1,20}", re.ASCII)


def sub_header(lines: list[str], i: int) -> int:
    """Index of the second header line (`pool alloc free ...`) under the first at lines[i]:
    the next line, or the next after up to three blank ones (Markdown split the header into a
    fenced line and a paragraph, corpus 282)."""
    j = i + 1
    while j < min(len(lines), i + 4) and not lines[j].strip():
        j += 1
    return j


def is_iostat_header(lines: list[str], i: int) -> bool:
    top = lines[i].split()
    j = sub_header(lines, i)
    sub = lines[j].split() if j < len(lines) else []
    return top[:3] == ["capacity", "operations", "bandwidth"] and sub[1:3] == ["alloc", "free"]


# What a user puts in place of rows left out: skipped, never the table's end (issue 26).
ELISION = re.compile(r"\(\.\.\.\)|\.\.\.|\[\.\.\.\]|…|\(snip\)|\[snip\]|<snip>")


def is_histogram_header(lines: list[str], i: int) -> bool:
    top = lines[i].split()
    sub = lines[i + 1].split() if i + 1 < len(lines) else []
    return (
        len(top) >= 2
        and top[1] in ("total_wait", "sync_read", "sync_queue")
        and sub[:1] in (["latency"], ["req_size"])
    )


def columns(top: str, sub: str) -> list[str]:
    """Column keys from the two header lines: group + sub-heading (capacity_alloc, scrub_wait)."""
    groups, subs = top.split(), sub.split()[1:]
    out, p = [], 0
    for g in groups:
        span = 2 if p < len(subs) and subs[p] in ("alloc", "read", "pend", "ind") else 1
        out += [f"{g}_{s}" for s in subs[p : p + span]]
        p += span
    return out


@dataclass(frozen=True, slots=True)
class IostatEntry:
    n: int
    depth: int
    name: str
    vclass: str
    alloc: int | None = None  # capacity, bytes; None for '-'
    free: int | None = None
    rates: dict[str, float] = field(default_factory=dict)  # _RATES key -> ops/s or bytes/s
    latency: dict[str, int | None] = field(default_factory=dict)  # LATENCY key -> ns (None: '-')


def take_iostat(
    lines: list[str], i: int, ends: Callable[[int], bool]
) -> tuple[int, list[list[IostatEntry]], list[Unreadable]]:
    """Header at lines[i]: the block's reports (each a list of entries) and its unread lines."""
    second = sub_header(lines, i)
    keys = columns(lines[i], lines[second])
    rows: list[Row] = []
    unread: list[Unreadable] = []
    j = second + 1
    while j < min(len(lines), second + 4) and not lines[j].strip():
        j += 1  # Markdown turned the dashes into rules between blank lines
    while j < len(lines) and lines[j].strip() and not ends(j):
        if ELISION.fullmatch(lines[j].strip()):
            unread.append((j + 1, lines[j], "rows left out by the poster: the report is read around them"))
        elif not is_dashes(lines[j]):
            if not looks_like_row(lines[j]):
                break  # prose right after the report: not part of it
            rows += _unglued(row(j + 1, lines[j]))
        j += 1
    depth = ranks(rows)
    reports: list[list[IostatEntry]] = [[]]
    vclass, seen = "normal", set[str]()
    for r in rows:
        if is_class_row(r.words):
            vclass = CLASS_WORDS[r.words[0]]
            continue
        d = depth[r.width]
        if d == 0:
            vclass = "normal"
            if r.words[0] in seen:  # the pool again: the next interval's report
                reports.append([])
                seen = set()
            seen.add(r.words[0])
        elif not reports[-1]:
            unread.append((r.n, lines[r.n - 1], "zpool iostat: vdev row before any pool row"))
            continue
        try:
            entry = _entry(r, d, vclass, keys)
        except ParseError as e:
            unread.append((r.n, lines[r.n - 1], f"zpool iostat: {e}"))
            continue
        reports[-1].append(entry)
    return j, [rep for rep in reports if rep], unread


def _unglued(r: Row) -> list[Row]:
    """A class row with its first device's row glued on (`cache  - ... -  loop0  3.34G ...`,
    zpool 0.7-rc left out the newline, openzfs/zfs#5852): the two rows, the device one level in."""
    w = r.words
    k = 1
    while k < len(w) and w[k] == "-":
        k += 1
    if w[0] not in CLASS_WORDS or k == 1 or len(w) - k < 2 or not looks_like_row(" ".join(w[k:])):
        return [r]
    return [Row(r.n, r.width, w[:k]), Row(r.n, r.width + 2, w[k:])]


def _entry(r: Row, depth: int, vclass: str, keys: list[str]) -> IostatEntry:
    """The row's values by the header's column keys; -q queue and -c script columns are skipped."""
    tokens = unmarked(r.words)[1:]
    if len(tokens) < len(keys):
        raise ParseError(f"{len(tokens) + 1} fields, the header has {len(keys) + 1}")
    alloc: int | None = None
    free: int | None = None
    rates: dict[str, float] = {}
    waits: dict[str, int | None] = {}
    for key, token in zip(keys, tokens):
        if key == "capacity_alloc":
            alloc = size(token)
        elif key == "capacity_free":
            free = size(token)
        elif key in _RATES:
            rates[key] = count(token)
        elif key in LATENCY:
            waits[key] = int(token) if _NS.fullmatch(token) else latency(token)
    return IostatEntry(r.n, depth, r.words[0], vclass, alloc, free, rates, waits)


def has_latency(entries: list[IostatEntry]) -> bool:
    return any(e.latency for e in entries)


def iostat_text(pools: list[list[IostatEntry]]) -> tuple[str, bool]:
    """The -v -H -p [-l] layout: rows in order, a blank line before each class group. With
    latency, 10 columns (0.8-2.1 layout) or 11 when any row has rebuild (2.2+)."""
    entries = [e for p in pools for e in p]
    lat = has_latency(entries)
    wide = any("rebuild_wait" in e.latency for e in entries)
    out: list[str] = []
    for pool in pools:
        vclass = "normal"
        for e in pool:
            if e.vclass != vclass:
                vclass = e.vclass
                out.append("")
            cells = [num(e.alloc), num(e.free)] + [num(e.rates.get(k)) for k in _RATES]
            if lat:
                cells += [num(e.latency.get(k)) for k in LATENCY[: 11 if wide else 10]]
            out.append("\t".join([e.name] + cells))
    return ("\n".join(out) + "\n" if out else ""), lat


def take_histogram(lines: list[str], i: int, ends: Callable[[int], bool]) -> int:
    j = i + 2
    while j < len(lines) and lines[j].strip() and not ends(j):
        j += 1
    return j


# `zpool iostat -H` without -v (or -l, -q, -r, -w, -c): one row per pool and interval, tab- or
# space-separated, in a fixed order (print_iostat_header's columns, no header printed).
SCRIPTED_KEYS = ("capacity_alloc", "capacity_free", *_RATES)
_SCRIPTED_FLAGS_THAT_ADD_COLUMNS = frozenset("vlqrwcg")


def scripted_layout(flags: set[str]) -> bool:
    """Do these `zpool iostat` flags print the fixed -H layout this reader knows?"""
    return "H" in flags and not flags & _SCRIPTED_FLAGS_THAT_ADD_COLUMNS


def take_scripted_iostat(lines: list[str], i: int) -> tuple[int, list[list[IostatEntry]]]:
    """The -H rows from lines[i] on (each a pool's row of one interval; the pool seen again
    starts the next report), until a line that is not one."""
    reports: list[list[IostatEntry]] = [[]]
    j = i
    while j < len(lines):
        words = lines[j].split()
        if len(words) != 1 + len(SCRIPTED_KEYS) or not looks_like_row(lines[j]):
            break
        try:
            entry = _entry(row(j + 1, lines[j]), 0, "normal", list(SCRIPTED_KEYS))
        except ParseError:
            break
        if any(e.name == entry.name for e in reports[-1]):
            reports.append([])
        reports[-1].append(entry)
        j += 1
    return j, [r for r in reports if r]
