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
from dataclasses import dataclass, field, replace

from zdash.model import VdevClass
from zdash.parse import ParseError
from zdash.parse.classes import TABLE_HEADINGS
from zdash.paste.depth import UNNAMED_POOL, UNSHOWN_VDEV, by_names, is_top_name
from zdash.paste.table import (
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
    vclass: VdevClass
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
    # `zpool iostat -v POOL VDEV...` heads its column of names 'vdev' and prints the named vdevs
    # alone, no pool row (corpus 214)
    named = lines[second].split()[:1] == ["vdev"]
    rows: list[Row] = []
    unread: list[Unreadable] = []
    j = second + 1
    while j < min(len(lines), second + 4) and not lines[j].strip():
        j += 1  # Markdown turned the dashes into rules between blank lines
    while j < len(lines) and not ends(j):
        if not lines[j].strip():
            if rows or not is_dashes(lines[j - 1]):
                break
            j += 1  # a blank line under the dash rule (corpus 214): the rows follow
            continue
        if ELISION.fullmatch(lines[j].strip()):
            unread.append((j + 1, lines[j], "rows left out by the poster: the report is read around them"))
        elif not is_dashes(lines[j]):
            if not looks_like_row(lines[j]):
                break  # prose right after the report: not part of it
            rows += _unglued(row(j + 1, lines[j]))
        j += 1
    if named:
        return j, _named_vdevs(rows, keys, unread, lines), unread
    depth = ranks(rows)
    reports: list[list[IostatEntry]] = [[]]
    vclass: VdevClass = "normal"
    seen = set[str]()
    for r in rows:
        if is_class_row(r.words):
            vclass = TABLE_HEADINGS[r.words[0]]
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


def _named_vdevs(
    rows: list[Row], keys: list[str], unread: list[Unreadable], lines: list[str]
) -> list[list[IostatEntry]]:
    """A report of named vdevs: each under a pool row the paste does not have (named later by
    the command line that names these vdevs, else `(pool-not-pasted)`). Where a vdev named
    other than mirror-N/raidzN-N/draid... sits is unknown (a disk of a top-level vdev, a
    single-disk vdev, a cache device that fills by design): it goes under `(vdev-not-pasted)`,
    whose layout no check judges, without its alloc/free; a top-level vdev keeps its place and
    its space."""
    reports: list[list[IostatEntry]] = []
    for r in rows:
        if is_class_row(r.words):
            continue
        if not reports or any(e.name == r.words[0] for e in reports[-1]):
            reports.append([IostatEntry(r.n, 0, UNNAMED_POOL, "normal")])
        top = is_top_name(r.words[0])
        try:
            entry = _entry(r, 1 if top else 2, "normal", keys)
        except ParseError as e:
            unread.append((r.n, lines[r.n - 1], f"zpool iostat: {e}"))
            continue
        if not top:
            entry = replace(entry, alloc=None, free=None)
            if not any(e.name == UNSHOWN_VDEV for e in reports[-1]):
                reports[-1].append(IostatEntry(r.n, 1, UNSHOWN_VDEV, "normal"))
        reports[-1].append(entry)

    # the pool, the top-level vdevs, then the others under the vdev not shown (after a named
    # mirror they would read as its disks)
    def place(e: IostatEntry) -> int:
        return 0 if e.depth == 0 else 1 if e.depth == 1 and e.name != UNSHOWN_VDEV else 2

    return [sorted(rep, key=place) for rep in reports if len(rep) > 1]


def _unglued(r: Row) -> list[Row]:
    """A class row with its first device's row glued on (`cache  - ... -  loop0  3.34G ...`,
    zpool 0.7-rc left out the newline, openzfs/zfs#5852): the two rows, the device one level in."""
    w = r.words
    k = 1
    while k < len(w) and w[k] == "-":
        k += 1
    if w[0] not in TABLE_HEADINGS or k == 1 or len(w) - k < 2 or not looks_like_row(" ".join(w[k:])):
        return [r]
    return [Row(r.n, r.width, w[:k]), Row(r.n, r.width + 2, w[k:])]


def _entry(r: Row, depth: int, vclass: VdevClass, keys: list[str]) -> IostatEntry:
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
        vclass: VdevClass = "normal"
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


# `zpool iostat -H`: no header and no indentation, one row per pool (and with -v per vdev) and
# interval, tab- or space-separated. The prompt's flags say the columns (print_iostat_header's
# order): the default six, then -l's latencies (9 in 0.7, 10 with trim, 11 with rebuild in 2.2+),
# then -q's queues (10, 12, 14 in the same releases), then -c script columns (not read). -r/-w
# print histograms, not rows.
SCRIPTED_KEYS = ("capacity_alloc", "capacity_free", *_RATES)
_RELEASES = ((9, 10), (10, 12), (11, 14))  # (latency, queue) columns: 0.7, 0.8-2.1, 2.2+


@dataclass(frozen=True, slots=True)
class ScriptedLayout:
    """What a `zpool iostat -H` row holds, by the prompt's flags."""

    latency: bool  # -l
    queues: bool  # -q
    scripts: bool  # -c: columns of the user's scripts after zpool's own
    vdevs: bool  # -v: vdev rows after each pool's

    def latencies(self, values: int) -> int | None:
        """How many latency columns a row of `values` values has (0 without -l); None when no
        release prints that many (with -c, only the columns every release shares are read)."""
        for lat, queue in _RELEASES:
            n = len(SCRIPTED_KEYS) + (lat if self.latency else 0) + (queue if self.queues else 0)
            if values == n or (self.scripts and values > n):
                return (lat if not self.scripts else _RELEASES[0][0]) if self.latency else 0
        return None


def scripted_layout(flags: set[str]) -> ScriptedLayout | None:
    """The -H layout these `zpool iostat` flags print; None without -H or for histograms."""
    if "H" not in flags or flags & {"r", "w"}:
        return None
    return ScriptedLayout("l" in flags, "q" in flags, "c" in flags, "v" in flags)


def take_scripted_iostat(
    lines: list[str], i: int, layout: ScriptedLayout, pools: frozenset[str] = frozenset()
) -> tuple[int, list[list[IostatEntry]], list[Unreadable]]:
    """The -H rows from lines[i] on, until a line that is not one: reports (a pool's rows of one
    interval; the pool seen again starts the next) and the rows not read. Without -v every row
    is a pool's. With -v the first row is a pool's, then its vdevs (depth from their names),
    until a pool the command line names (`pools`) or the first pool again; a blank line opens a
    class zpool -H does not name (log, special, dedup, cache): those rows are not read."""
    reports: list[list[IostatEntry]] = [[]]
    unread: list[Unreadable] = []
    rows: list[tuple[Row, int]] = []  # (row, latency columns) of the pool being read
    classed = False  # after a blank line inside a -v report
    j = i

    def flush() -> None:
        if rows:
            reports[-1].extend(_scripted_tree(rows, unread, lines))
            rows.clear()

    while j < len(lines):
        text = lines[j]
        if not text.strip():
            nxt = j + 1
            if layout.vdevs and nxt < len(lines) and _scripted_row(lines[nxt], layout) is not None and rows:
                classed = True
                j += 1
                continue
            break
        words = text.split()
        lat = _scripted_row(text, layout)
        if lat is None:
            if len(words) > len(SCRIPTED_KEYS) and looks_like_row(text, len(SCRIPTED_KEYS)):
                unread.append(
                    (
                        j + 1,
                        text,
                        f"zpool iostat -H: {len(words) - 1} values, no layout of its flags has that many columns",
                    )
                )
                j += 1
                continue
            break
        name = words[0]
        first = not rows or name in pools or name == rows[0][0].words[0] or not layout.vdevs
        if first:
            flush()
            classed = False
            if any(e.depth == 0 and e.name == name for e in reports[-1]):
                reports.append([])  # the pool again: the next interval's report
            rows.append((row(j + 1, text), lat))
        elif classed:
            unread.append(
                (
                    j + 1,
                    text,
                    "zpool iostat -H -v: a class zpool -H does not name (log, special, dedup or cache): not read",
                )
            )
        else:
            rows.append((row(j + 1, text), lat))
        j += 1
    flush()
    return j, [r for r in reports if r], unread


def _scripted_row(line: str, layout: ScriptedLayout) -> int | None:
    """The latency columns of a -H row of this layout; None when the line is no such row."""
    words = line.split()
    if len(words) < 1 + len(SCRIPTED_KEYS) or not looks_like_row(line, len(SCRIPTED_KEYS)):
        return None
    return layout.latencies(len(words) - 1)


def _scripted_tree(
    rows: list[tuple[Row, int]], unread: list[Unreadable], lines: list[str]
) -> list[IostatEntry]:
    """One pool's -H rows as entries, the depth of each from the names (the first is the pool),
    or none when the vdevs' space does not add up to the pool's (two pools read as one: -H
    prints nothing between pools; name them on the command line)."""
    depths = by_names([r.words[0] for r, _ in rows])
    entries = []
    for (r, lat), depth in zip(rows, depths):
        try:
            entries.append(_entry(r, depth, "normal", [*SCRIPTED_KEYS, *LATENCY[:lat]]))
        except ParseError as e:
            unread.append((r.n, lines[r.n - 1], f"zpool iostat -H: {e}"))
    tops = [e.alloc or 0 for e in entries if e.depth == 1]
    pool = entries[0].alloc if entries and entries[0].depth == 0 else None
    if pool is not None and len(entries) > 1 and sum(tops) > pool * 1.01 + (1 << 20):
        unread += [
            (
                e.n,
                lines[e.n - 1],
                "zpool iostat -H -v: these rows hold more than one pool (its "
                "vdevs' space exceeds the pool's) and -H prints nothing between pools: name the pool",
            )
            for e in entries
        ]
        return []
    return entries
