"""A disk's latency histogram against its peers', drawn as a heat strip: one row per disk (the
peers pooled), one column per power-of-two bucket of disk wait from 1 µs to 34 s, each cell's
height the share of that row's I/Os in the bucket (eighth blocks), p50 and p99 beside it. "All
slow" is a row shifted right; "a long tail" is the same hump with a tail the peers do not have.

Pure text: (text, role) cells the finding screen and the chart panel turn into content.
"""

from __future__ import annotations

import time

from textual.content import Content

from zdash.fmt import fmt_wait, shorten
from zdash.model import LatencyHistogram
from zdash.ui.markup import cell_content, lines, merge_runs
from zdash.ui.roles import Cell, Role

FIRST, LAST = 9, 34  # buckets 1 µs (1023 ns) .. 34 s (2^35-1 ns): what disks do
BLOCKS = " ▁▂▃▄▅▆▇█"
DISK = ("disk_read", "disk_write")
TICKS = (9, 15, 21, 27, 33)  # 1 µs, 65 µs, 4 ms, 268 ms, 17 s: every sixth bucket, x64 apart


def _buckets(h: LatencyHistogram) -> list[int]:
    cols = [h.column(c) or () for c in DISK]
    counts = [sum(c[i] for c in cols if i < len(c)) for i in range(len(h.bounds))]
    shown = counts[FIRST : LAST + 1]
    shown[0] += sum(counts[:FIRST])  # faster than 1 µs (a cache): the first column
    shown[-1] += sum(counts[LAST + 1 :])
    return shown


def strip_lines(rows: list[tuple[str, LatencyHistogram, Role]], width: int) -> list[Cell]:
    """The strip for `rows` (label, histogram, role), fitted to `width` columns: two cells per
    bucket when there is room, one otherwise. Rows without an I/O say so."""
    buckets = LAST - FIRST + 1
    label_w = max(8, min(16, max((len(r[0]) for r in rows), default=8)))
    stats_w = 24
    cell = max(1, min(4, (width - label_w - 1 - stats_w) // buckets))  # 1 at 80 columns, 4 at 200
    axis: list[tuple[str, Role]] = [(" " * (label_w + 1), "muted")]
    line = [" "] * (buckets * cell)
    ticks = range(FIRST, LAST + 1, 3) if cell >= 3 else TICKS  # every 8x when there is room
    for j in ticks:
        text = fmt_wait((1 << (j + 1)) - 1).replace(" ", "")
        at = (j - FIRST) * cell
        if at + len(text) <= len(line) and all(c == " " for c in line[max(at - 1, 0) : at + len(text)]):
            line[at : at + len(text)] = list(text)
    axis.append(("".join(line), "muted"))
    out: list[Cell] = [merge_runs(axis)]
    for label, h, role in rows:
        counts = _buckets(h)
        total = sum(counts)
        name = shorten(label, label_w).ljust(label_w)
        if total == 0:
            out.append(((name + " ", "text"), ("no disk I/O in this window", "muted")))
            continue
        top = max(counts)
        chars = []
        for n in counts:
            level = 0 if n == 0 else max(1, round(8 * n / top))
            chars.append((BLOCKS[level] * cell, role if n else "muted"))
        p50, p99 = h.quantile(0.5, *DISK), h.quantile(0.99, *DISK)
        stats = f" p50 {fmt_wait(p50)}  p99 {fmt_wait(p99)}"
        out.append(merge_runs([(name + " ", "text"), *chars, (stats, "muted")]))
    return out


def strip_content(rows: list[tuple[str, LatencyHistogram, Role]], width: int, title: str) -> Content:
    """The titled strip as content: a disk's name is text, never markup."""
    return lines([cell_content(((title, "info"),)), *(cell_content(c) for c in strip_lines(rows, width))])


def since_words(h: LatencyHistogram) -> str:
    """What the counts cover: since the first reading zdash took, or since the pool's import."""
    if h.since is None:
        return "since the pool's import"
    return time.strftime("since %H:%M:%S UTC", time.gmtime(h.since))
