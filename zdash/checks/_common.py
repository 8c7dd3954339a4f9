"""Helpers shared by the checks: number formatting for evidence, and walking pools/history.

Formatting is deliberately one style everywhere: sizes base 1024 with IEC units (what zpool
means by "M" and "G"), latency in ms, percentages with one decimal.
"""
from __future__ import annotations

from statistics import median
from typing import Iterable, Iterator, Sequence

from zdash.checks.finding import SuggestedAction
from zdash.model import Pool, Snapshot, Vdev

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def fmt_bytes(n: float | None) -> str:
    if n is None:
        return "unknown"
    value, unit = float(n), 0
    while abs(value) >= 1024 and unit < len(_UNITS) - 1:
        value /= 1024
        unit += 1
    if unit == 0:
        return f"{int(value)} B"
    return f"{value:.1f} {_UNITS[unit]}" if abs(value) < 100 else f"{value:.0f} {_UNITS[unit]}"


def fmt_rate(bytes_per_s: float | None) -> str:
    return "unknown" if bytes_per_s is None else f"{fmt_bytes(bytes_per_s)}/s"


def fmt_ms(ns: float | None) -> str:
    """Latency given in ns (zpool iostat -p), shown in ms."""
    if ns is None:
        return "no I/O"
    ms = ns / 1e6
    return f"{ms:.2f} ms" if ms < 10 else f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"


def fmt_pct(pct: float | None) -> str:
    return "unknown" if pct is None else f"{pct:.1f} %"


def fmt_duration(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    s = int(round(max(seconds, 0)))
    days, rest = divmod(s, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {secs} s"
    return f"{secs} s"


def fmt_list(items: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def act(label: str, action: str | None, *argv: str) -> SuggestedAction:
    return SuggestedAction(label=label, argv=tuple(argv), action=action)


def median_or_none(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return median(known) if known else None


# --- pools and vdev trees ---------------------------------------------------------------

DATA_CLASSES = ("normal", "special", "dedup")
SINGLE_KINDS = ("disk", "file")


def vdev_space(v: Vdev) -> int | None:
    """Allocatable bytes of a top-level vdev. For a single-disk top-level vdev zpool list -v
    prints the *leaf's* raw size in SIZE (vs_pspace), larger than ALLOC+FREE, so prefer the sum."""
    if v.alloc is not None and v.free is not None and v.alloc + v.free > 0:
        return v.alloc + v.free
    return v.size


def vdev_fill_pct(v: Vdev) -> float | None:
    """Fill % as zpool's CAP column computes it (alloc over allocatable space)."""
    space = vdev_space(v)
    if space and v.alloc is not None:
        return 100.0 * v.alloc / space
    return v.cap_pct


def pool_fill_pct(p: Pool) -> float | None:
    if p.size and p.alloc is not None:
        return 100.0 * p.alloc / p.size
    return None if p.cap_pct is None else float(p.cap_pct)


def normal_vdevs(p: Pool) -> tuple[Vdev, ...]:
    return tuple(v for v in p.top_level if v.vclass == "normal")


def is_single_disk(v: Vdev) -> bool:
    return not v.children and v.kind in SINGLE_KINDS


def leaves_with_top(p: Pool, classes: Sequence[str] = DATA_CLASSES) -> Iterator[tuple[Vdev, Vdev]]:
    """(top-level vdev, leaf) for every leaf below the given classes; a single-disk
    top-level vdev is its own leaf."""
    for top in p.top_level:
        if top.vclass in classes:
            for leaf in top.leaves():
                yield top, leaf


def parents(root: Vdev) -> dict[int, Vdev]:
    """id(child) -> parent, to find a leaf's interior vdev (replacing-N, spare-N, mirror-N)."""
    out: dict[int, Vdev] = {}
    for v in root.walk():
        for c in v.children:
            out[id(c)] = v
    return out


def vdev_key(v: Vdev) -> str:
    """Identity of a vdev across snapshots: the GUID when known (names change on replace)."""
    return v.guid or v.path or v.name


def find_by_key(p: Pool, key: str) -> Vdev | None:
    return next((v for v in p.root.walk() if vdev_key(v) == key), None)


def pool_series(history: Sequence[Snapshot], name: str) -> list[tuple[float, Pool]]:
    """(time, pool) for every snapshot in which the pool appears, oldest first."""
    out = []
    for snap in history:
        p = snap.pool(name)
        if p is not None:
            out.append((snap.time, p))
    return out


def linear_slope(points: Sequence[tuple[float, float]]) -> float | None:
    """Least-squares slope (units per second) through (t, y); None if t does not vary."""
    n = len(points)
    if n < 2:
        return None
    mean_t = sum(t for t, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    var_t = sum((t - mean_t) ** 2 for t, _ in points)
    if var_t == 0:
        return None
    return sum((t - mean_t) * (y - mean_y) for t, y in points) / var_t
