"""`zpool iostat -w` (latency) and `-r` (request size) histograms, scripted or as printed.

Formats (reference §2.2; the same from 0.8 to 2.4, and checked on 2.3.2 in the lab):
- scripted, `-H -p`: each vdev's block starts with an empty line, then its name alone on a line
  (a GUID under -g), then one row per bucket, `<bucket>\\t<count>\\t…`. A latency bucket is its
  upper bound in ns, 2^(j+1)-1 (1, 3, 7, … 137438953471: 37 buckets); a size bucket its lower
  bound in bytes, 2^j from 512.
- as printed: a header naming the vdev over the column groups (`total_wait disk_wait syncq_wait
  asyncq_wait` or `sync_read sync_write async_read async_write`), a line of column names, a
  dashes line, the rows (`1ns`, `2us`, `134ms`, `1s` / `512`, `1K`, `16M`; counts as zpool's
  nicenum, `1.25K`), a dashes line.
- columns: latency total r/w, disk r/w, syncq r/w, asyncq r/w, scrub, trim, and from 2.2
  rebuild (10 or 11); size ind/agg of sync_read, sync_write, async_read, async_write, scrub,
  trim, and from 2.2 rebuild (12 or 14).

There is no JSON `zpool iostat` in any version (`-j` is refused: "invalid option 'j'", captured
on 2.3.2; reference §2). Without an interval the counts are since the pool was imported; with
one, a later report holds that interval's counts. A block whose rows disagree on the number of
columns, or whose buckets are out of order, is refused with a one-line reason.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from zdash.parse import ParseError
from zdash.parse.units import parse_size

LATENCY_COLUMNS = (
    "total_read",
    "total_write",
    "disk_read",
    "disk_write",
    "syncq_read",
    "syncq_write",
    "asyncq_read",
    "asyncq_write",
    "scrub",
    "trim",
    "rebuild",
)
SIZE_COLUMNS = tuple(
    f"{kind}_{agg}"
    for kind in ("sync_read", "sync_write", "async_read", "async_write", "scrub", "trim", "rebuild")
    for agg in ("ind", "agg")
)
LATENCY_BUCKETS = 37  # VDEV_L_HISTO_BUCKETS
MAX_BLOCKS = 100_000  # a whole 1,000-disk pool's -v is ~1,100 blocks; far beyond is not zpool
_INT = re.compile(r"\d{1,20}", re.ASCII)
_TIME_LABEL = re.compile(r"(\d{1,6})(ns|us|ms|s)", re.ASCII)
_NS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_DASHES = re.compile(r"-{5,}[- ]*")


@dataclass(frozen=True, slots=True)
class HistBlock:
    """One vdev's histogram as printed: `kind` latency (bounds: upper, ns) or size (bounds:
    lower, bytes); columns in zpool's order, each with one count per bucket."""

    name: str
    kind: str
    bounds: tuple[int, ...]
    columns: tuple[tuple[str, tuple[int, ...]], ...]


def parse_histograms(text: str) -> tuple[HistBlock, ...]:
    """Every block in the text, in order (a stream of several reports repeats the names: the
    newest is the last)."""
    if not isinstance(text, str):
        raise ParseError(f"zpool iostat -w: expected text, got {type(text).__name__}")
    if "invalid option" in text or "isn't allowed" in text or "usage:" in text or "Expected either" in text:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        raise ParseError(f"zpool iostat: {first[:80]}")
    lines = text.splitlines()
    if any("\t" in line for line in lines[:400]):
        return _scripted(lines)
    return _printed(lines)


def _scripted(lines: list[str]) -> tuple[HistBlock, ...]:
    blocks: list[HistBlock] = []
    name: str | None = None
    rows: list[list[str]] = []
    for n, line in enumerate(lines, 1):
        if "\t" in line:
            if name is None:
                raise ParseError(f"zpool iostat -w -H line {n}: a bucket row before any vdev name")
            rows.append(line.split("\t"))
            continue
        if rows and name is not None:
            blocks.append(_block(name, [(r[0], r[1:]) for r in rows], exact=True))
            rows = []
        word = line.strip()
        # A name is the line before a block's rows; an epoch line (-T u) or a blank one is not.
        following = lines[n] if n < len(lines) else ""
        name = word if word and "\t" in following else None
        if len(blocks) > MAX_BLOCKS:
            raise ParseError(f"zpool iostat -w: more than {MAX_BLOCKS} vdev blocks")
    if rows and name is not None:
        blocks.append(_block(name, [(r[0], r[1:]) for r in rows], exact=True))
    return tuple(blocks)


def _printed(lines: list[str]) -> tuple[HistBlock, ...]:
    """The human tables: a header line (vdev name first), a column line, dashes, rows, dashes."""
    blocks: list[HistBlock] = []
    name: str | None = None
    rows: list[tuple[str, list[str]]] = []
    in_rows = False
    for n, line in enumerate(lines, 1):
        words = line.split()
        if not words:
            continue
        if _DASHES.fullmatch(line.strip()):
            if in_rows and rows and name is not None:
                blocks.append(_block(name, rows, exact=False))
                rows, in_rows, name = [], False, None
            elif name is not None:
                in_rows = True
            continue
        if in_rows:
            rows.append((words[0], words[1:]))
            continue
        if words[0] in ("latency", "req_size"):
            continue  # the column names line: the layout is read from the rows
        if any(w in ("total_wait", "sync_read") for w in words[1:]):
            name = words[0]
        elif name is None and len(words) > 1 and n > 1:
            raise ParseError(f"zpool iostat -w line {n}: not a histogram table: {line.strip()[:60]!r}")
        if len(blocks) > MAX_BLOCKS:
            raise ParseError(f"zpool iostat -w: more than {MAX_BLOCKS} vdev blocks")
    if in_rows and rows and name is not None:
        blocks.append(_block(name, rows, exact=False))  # a paste cut before the closing dashes
    return tuple(blocks)


def _block(name: str, rows: list[tuple[str, list[str]]], exact: bool) -> HistBlock:
    widths = {len(values) for _, values in rows}
    if len(widths) != 1:
        raise ParseError(f"zpool iostat -w: {name}: rows with {sorted(widths)} columns")
    width = widths.pop()
    bounds = [_bound(label, exact, name) for label, _ in rows]
    if any(b >= a for a, b in zip(bounds[1:], bounds)):
        raise ParseError(f"zpool iostat -w: {name}: buckets out of order")
    if width in (10, 11) and bounds[0] < 512:
        kind, names = "latency", LATENCY_COLUMNS[:width]
    elif width in (12, 14) and bounds[0] >= 512:
        kind, names = "size", SIZE_COLUMNS[:width]
    else:
        raise ParseError(
            f"zpool iostat -w: {name}: {width} columns from bucket {bounds[0]} is neither -w nor -r"
        )
    counts = [[_count(v, exact, name) for v in values] for _, values in rows]
    columns = tuple((col, tuple(row[i] for row in counts)) for i, col in enumerate(names))
    return HistBlock(name, kind, tuple(bounds), columns)


def _bound(label: str, exact: bool, name: str) -> int:
    """A bucket label as a number: exact under -p; from `1ns`/`65us`/`1s` (the latency bucket
    2^(j+1)-1 printed in ZFS_NICENUM_TIME) or `512`/`1K`/`16M` (a size bucket 2^j) otherwise."""
    if _INT.fullmatch(label):
        return int(label)
    m = _TIME_LABEL.fullmatch(label)
    if m:
        ns = int(m.group(1)) * _NS[m.group(2)]
        j = max(round(math.log2(ns + 1)) - 1, 0)
        return (1 << (j + 1)) - 1
    try:
        size = parse_size(label)
    except ParseError:
        size = None
    if size is None or size <= 0 or exact:
        raise ParseError(f"zpool iostat -w: {name}: not a bucket: {label[:20]!r}")
    return 1 << round(math.log2(size))


def _count(value: str, exact: bool, name: str) -> int:
    if _INT.fullmatch(value):
        return int(value)
    if not exact:
        try:
            size = parse_size(value)  # 1.25K: zpool's nicenum of a count, base 1024
        except ParseError:
            size = None
        if size is not None:
            return size
    raise ParseError(f"zpool iostat -w: {name}: not a count: {value[:20]!r}")


def histogram_argv(pool: str, vdev_guids: tuple[str, ...]) -> tuple[str, ...]:
    """The latency histograms of some of a pool's vdevs, by GUID (-g: rows named by GUID too, so
    a renamed or replaced disk cannot be confused with another), since the pool's import.

    The trailing `1 1` (interval 1 s, count 1: the first report, at once) is not decoration:
    zpool takes a numeric last argument as the interval, so a GUID that has just left the pool
    would otherwise turn the command into a stream that never ends; with them it is refused."""
    return ("zpool", "iostat", "-w", "-H", "-p", "-g", pool, *vdev_guids, "1", "1")
