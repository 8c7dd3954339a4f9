"""`zpool list -v -H -p` (0.8 to 2.4+) into per-pool space records.

Traps (reference §1.2, §1.3, §12.1-3): vdev rows start with a TAB and have lost their depth;
class header rows (logs, dedup, special, cache, spare) are space-padded even under -H; '-'
survives -p (ckpoint, expandsz, leaf alloc/free/frag/cap, vdev dedup); the vdev CAP is a
permyriad float without -p (11.9%). Vdev rows carry 9 values up to 2.4.0 and a 10th (altroot)
from 2.4.1. The human layout (no -H, with or without -p) is accepted too, for old recordings.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from zdash.model import VdevClass
from zdash.parse import ParseError
from zdash.parse.classes import TABLE_HEADINGS
from zdash.parse.reuse import Reuse
from zdash.parse.units import parse_size

_DECIMAL = re.compile(r"\d{1,20}(?:\.\d{1,20})?", re.ASCII)  # bounded: no int() blow-up


@dataclass(frozen=True, slots=True)
class ListVdev:
    name: str
    size: int | None  # top-level: vs_space; leaf (2.1.6+): the device's physical size
    alloc: int | None
    free: int | None
    frag_pct: int | None
    cap_pct: float | None  # permyriad-precise in human output (46.3), integer under -p (46)
    health: str | None
    vclass: VdevClass = "normal"

    @property
    def space(self) -> int | None:
        """alloc + free: the usable space. Use this, not size, as a fill denominator: a
        single-disk top-level vdev prints its *physical* size (captures: c85 1073741824 vs
        alloc+free 1006632960)."""
        return self.alloc + self.free if self.alloc is not None and self.free is not None else None


@dataclass(frozen=True, slots=True)
class ListPool:
    name: str
    size: int | None
    alloc: int | None
    free: int | None
    frag_pct: int | None
    cap_pct: int | None
    dedup_ratio: float | None
    health: str | None
    expandsize: int | None  # '-' (None) means 0 here (§1.1)
    checkpoint: int | None  # likewise
    vdevs: tuple[ListVdev, ...] = ()


def _size(s: str, what: str, n: int) -> int | None:
    """'-' -> None. Exact under -p, nicenum ('1.50K', base 1024) in the human layout."""
    try:
        return parse_size(s)
    except ParseError as e:
        raise ParseError(f"zpool list line {n}: {what}: {e}") from None


def _decimal(s: str, what: str, n: int) -> float | None:
    """'-' -> None. Percents ('46.3%') and ratios ('1.00x') lose their sign."""
    if s == "-":
        return None
    bare = s.removesuffix("x" if what == "dedup" else "%")
    if not _DECIMAL.fullmatch(bare):
        raise ParseError(f"zpool list line {n}: {what}: {s[:20]!r} is not a number")
    return float(bare)


def _percent(s: str, what: str, n: int) -> int | None:
    """A whole percent (pool CAP, FRAG): '46%' under -p, rounded when printed with decimals."""
    value = _decimal(s, what, n)
    return None if value is None else round(value)


class _Values(NamedTuple):
    size: int | None
    alloc: int | None
    free: int | None
    frag: int | None
    cap: str  # as printed: the pool's CAP is a whole percent, a vdev's a float
    dedup: float | None
    health: str | None
    expand: int | None
    ckpt: int | None


def _values(name: str, vals: list[str], n: int) -> _Values:
    if len(vals) not in (9, 10):  # 9 fixed values; 10 with the pool / 2.4.1+ altroot column
        raise ParseError(f"zpool list line {n}: {name[:40]!r} has {len(vals) + 1} fields, expected 10 or 11")
    size, alloc, free, ckpt, expand, frag, cap, dedup, health = vals[:9]
    return _Values(
        _size(size, "size", n),
        _size(alloc, "alloc", n),
        _size(free, "free", n),
        _percent(frag, "frag", n),
        cap,
        _decimal(dedup, "dedup", n),
        None if health == "-" else health,
        _size(expand, "expandsz", n),
        _size(ckpt, "ckpoint", n),
    )


def _rows(text: str) -> Iterator[tuple[int, bool, str, bool]]:
    """Yield (line_no, is_vdev, line, scripted): -H if any line has a TAB (fields split by TAB),
    else the human layout, where indentation marks a vdev and whitespace separates fields."""
    scripted = "\t" in text
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if scripted and "\t" in line:
            yield n, line.startswith("\t"), line, True
        elif not scripted and line.split()[0] == "NAME":
            continue  # the header, once per report
        else:
            yield n, line[0] in " \t", line, False


def _fields(line: str, is_vdev: bool, scripted: bool) -> list[str]:
    return (line[1:] if is_vdev else line).split("\t") if scripted else line.split()


def parse_list(text: str, reuse: Reuse[ListVdev] | None = None) -> dict[str, ListPool]:
    """Every pool of the table, in order. `reuse`: the vdev rows the caller's last parse built,
    by their line (zdash.parse.reuse): a row that reads as before, in the same class, is the
    same ListVdev again (a pool being written to moves its own and its top-level vdevs' space,
    not its thousand disks' rows). The result is equal either way."""
    if not isinstance(text, str):
        raise ParseError(f"zpool list: expected text, got {type(text).__name__}")
    pools: dict[str, ListPool] = {}
    pool: ListPool | None = None
    vdevs: list[ListVdev] = []
    vclass: VdevClass = "normal"
    for n, is_vdev, line, scripted in _rows(text):
        if is_vdev and reuse is not None and pool is not None:
            known = reuse.get((vclass, line))
            if known is not None:
                vdevs.append(known)
                continue
        f = _fields(line, is_vdev, scripted)
        if f[0] in TABLE_HEADINGS and all(v == "-" for v in f[1:]):
            if pool is None:
                raise ParseError(f"zpool list line {n}: class header before any pool")
            vclass = TABLE_HEADINGS[f[0]]  # a pool row always has a health value
            continue
        if len(f) == 1 or not f[0]:
            raise ParseError(f"zpool list line {n}: not a pool or vdev row: {f[0][:40]!r}")
        size, alloc, free, frag, cap, dedup, health, expand, ckpt = _values(f[0], f[1:], n)
        if is_vdev:
            if pool is None:
                raise ParseError(f"zpool list line {n}: vdev row before any pool row")
            vdev = ListVdev(f[0], size, alloc, free, frag, _decimal(cap, "cap", n), health, vclass)
            if reuse is not None:
                reuse.put((vclass, line), vdev)
            vdevs.append(vdev)
            continue
        if pool is not None:
            pools[pool.name] = dataclasses.replace(pool, vdevs=tuple(vdevs))
        pool = ListPool(f[0], size, alloc, free, frag, _percent(cap, "cap", n), dedup, health, expand, ckpt)
        vdevs, vclass = [], "normal"
    if pool is not None:
        pools[pool.name] = dataclasses.replace(pool, vdevs=tuple(vdevs))
    return pools
