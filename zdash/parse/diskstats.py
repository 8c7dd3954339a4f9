"""/proc/diskstats counters, and per-second rates from two samples (reference §7.2).

Lines have 14 fields (kernel < 4.18), 18 (discards, 4.18+) or 20 (flushes, 5.5+); only the
first 14 matter here. Sectors are always 512 bytes, whatever the device's sector size.
Counters are unsigned long and wrap on 32-bit kernels; a device can also be removed and a new
one get its name: any counter going backwards makes the rate unknown (None), never negative.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Container, Iterator, Mapping, Sequence
from itertools import repeat
from operator import itemgetter, sub
from typing import NamedTuple, overload

from zdash.model import DiskIo, builder_of
from zdash.parse import ParseError

SECTOR = 512
_COUNT = re.compile(r"\d{1,20}", re.ASCII)  # bounded so int() cannot blow up on junk


class DiskCounters(NamedTuple):  # a tuple: a thousand of them are built every tick
    device: str  # kernel name, field 3 (sda1, nvme0n1p1, dm-0, loop2)
    reads: int  # field 4: reads completed
    read_sectors: int  # field 6
    read_ms: int  # field 7
    writes: int  # field 8
    write_sectors: int  # field 10
    write_ms: int  # field 11
    in_flight: int  # field 12: instantaneous, not a counter
    io_ms: int  # field 13: io_ticks, time the device had I/O in flight
    weighted_ms: int  # field 14: queue-time integral


_new = tuple.__new__
_diskio = builder_of(DiskIo)
_COLUMNS = (0, 2, 3, 4, 6, 7, 8, 9, 10)  # DiskCounters' counters among a line's fields 4..14
_IN_FLIGHT = 6  # among those: the one that is not a counter


class DiskTable(Mapping[str, DiskCounters]):
    """Parsed /proc/diskstats, {device: DiskCounters}. The usual file is also kept as its
    devices' names and one list per counter (`columns`, in DiskCounters order), from which
    rates_between computes a tick's rates a column at a time; the per-device tuples are built
    only if something asks for them. `columns` is None when the file was read line by line."""

    __slots__ = ("_by_name", "columns", "names")

    def __init__(
        self,
        names: tuple[str, ...],
        columns: tuple[list[int], ...] | None,
        by_name: dict[str, DiskCounters] | None = None,
    ) -> None:
        self.names, self.columns, self._by_name = names, columns, by_name

    def _dict(self) -> dict[str, DiskCounters]:
        if self._by_name is None:
            assert self.columns is not None
            rows = zip(self.names, *self.columns)
            self._by_name = dict(zip(self.names, map(_new, repeat(DiskCounters), rows)))
        return self._by_name

    def __getitem__(self, device: str) -> DiskCounters:
        return self._dict()[device]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict())

    def __len__(self) -> int:
        # names are unique either way (the bulk read refuses a file naming a device twice), so
        # asking whether the table is empty builds no per-device tuple (the fold asks every tick)
        return len(self.names)

    def __repr__(self) -> str:
        return f"DiskTable({self._dict()!r})"


_RATE_FIELDS = (
    "util_pct",
    "read_await_ms",
    "write_await_ms",
    "reads_per_s",
    "writes_per_s",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "queue_depth",
)


class DiskRates(Mapping[str, DiskIo]):
    """A tick's rates, {device: DiskIo}, kept as the columns they were computed in: the
    devices' names and one list per DiskIo figure after the name (in DiskIo's order). A
    device's DiskIo is built only when read (`at`, or as a mapping): the fold reads the
    columns, so a tick costs no object per disk."""

    __slots__ = ("_index", "columns", "names")

    def __init__(self, names: tuple[str, ...], columns: tuple[Sequence[float | None], ...]) -> None:
        self.names, self.columns = names, columns
        self._index: dict[str, int] | None = None

    @classmethod
    def of(cls, rates: Mapping[str, DiskIo]) -> DiskRates:
        ios = list(rates.values())
        return cls(tuple(rates), tuple([getattr(d, f) for d in ios] for f in _RATE_FIELDS))

    def at(self, i: int) -> DiskIo:
        c = self.columns
        return _diskio(self.names[i], c[0][i], c[1][i], c[2][i], c[3][i], c[4][i], c[5][i], c[6][i], c[7][i])

    def index(self) -> dict[str, int]:
        """Each device's row."""
        if self._index is None:
            self._index = {name: i for i, name in enumerate(self.names)}
        return self._index

    def __getitem__(self, device: str) -> DiskIo:
        return self.at(self.index()[device])

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        return f"DiskRates({dict(self.items())!r})"


NO_RATES = DiskRates((), ((),) * 8)


def parse_diskstats(text: str, wanted: Container[str] | None = None) -> DiskTable:
    """Malformed lines are skipped (a reader may catch a line mid-update, psutil fallbacks
    differ); text with no valid line at all is an error. `wanted`: the kernel names to keep
    (the pools' disks), so a host with thousands of block devices costs only its pools'."""
    if not isinstance(text, str):
        raise ParseError(f"/proc/diskstats: expected text, got {type(text).__name__}")
    table = _by_column(text, wanted)
    if table is not None:
        return table
    # A file of mixed widths, every counter a number: checked and converted by C loops over all of them
    # at once, each disk's tuple built by tuple.__new__ from a zip (no call per disk). Only
    # strings are kept while reading (a list per line alive until the end would outlive the
    # garbage collector's young generations).
    names: list[str] = []
    flat: list[str] = []  # the eleven counters of every disk kept, disk after disk
    for line in text.splitlines():
        f = line.split()
        if len(f) in (14, 18, 20) and (wanted is None or f[2] in wanted):
            names.append(f[2])
            flat += f[3:14]
    if names:
        digits = "".join(flat)
        if digits.isdigit() and digits.isascii() and max(map(len, flat)) <= 20:
            n = list(map(int, flat))
            if max(n) < 1 << 64 and len(set(names)) == len(names):  # a name twice: the last wins
                return DiskTable(tuple(names), tuple(n[i::11] for i in _COLUMNS))
    by_name = _by_line(text, wanted)
    return DiskTable(tuple(by_name), None, by_name)


_LINE = "\x00"  # marks each line's end in _by_column's one split (a word no line can hold)
_LINE_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e"  # besides \n, where str.splitlines also ends a line


def _by_column(text: str, wanted: Container[str] | None) -> DiskTable | None:
    """The kernel's own file, read as columns: every line of one width (14, 18 or 20 fields),
    every counter a number below 2**64 written without leading zeros, no device twice. The text
    is split once (each line's end marked by a word of its own) and each field is a slice of
    that one list. None for anything else (the caller reads it as before: the same table or the
    same error)."""
    if not text.isascii() or _LINE in text or any(c in text for c in _LINE_BREAKS):
        return None
    lines = text.count("\n") + (not text.endswith("\n"))
    words = text.replace("\n", " " + _LINE + " ").split()
    if not text.endswith("\n"):
        words.append(_LINE)
    width = len(words) // lines - 1 if lines else 0
    if width not in (14, 18, 20) or len(words) != (width + 1) * lines:
        return None
    step = width + 1
    if words[width::step].count(_LINE) != lines:
        return None  # (a line of another width; a blank line)
    names = words[2::step]
    fields = [words[3 + i : step * lines : step] for i in range(11)]  # fields 4..14, by column
    if wanted is not None:
        keep = [i for i, name in enumerate(names) if name in wanted]
        if len(keep) < len(names):
            if not keep:
                return None
            pick = itemgetter(*keep)
            names = [names[i] for i in keep]
            fields = [list(pick(f)) if len(keep) > 1 else [f[keep[0]]] for f in fields]
    if not "".join(["".join(f) for f in fields]).isdigit():
        return None  # (a word, a sign: the line reader skips that line)
    if max([max(map(len, f), default=0) for f in fields]) > 20:
        # (a counter longer than 2**64's 20 digits, which json would make an int of at a cost
        # quadratic in its length on a Python before 3.10.7; the file may come over ssh)
        return None
    try:
        # One JSON array of arrays: json's C reader makes the ints in about half the time of
        # int() a field at a time. Leading zeros are not JSON: such a file goes line by line.
        numbers = json.loads("[[" + "],[".join([",".join(f) for f in fields]) + "]]")
    except ValueError:
        return None
    if max(map(max, numbers)) >= 1 << 64 or len(set(names)) != len(names):
        return None  # (a counter too big for the kernel's unsigned long; a device twice)
    return DiskTable(tuple(names), tuple(numbers[i] for i in _COLUMNS))


def _by_line(text: str, wanted: Container[str] | None) -> dict[str, DiskCounters]:
    """parse_diskstats line by line, skipping what is malformed (any file the bulk read refuses)."""
    out: dict[str, DiskCounters] = {}
    seen_valid = False
    for line in text.splitlines():
        f = line.split()
        if len(f) not in (14, 18, 20):
            continue
        if wanted is not None and f[2] not in wanted:
            seen_valid = True
            continue
        digits = "".join(f[3:14])  # one C-level check for the eleven counters
        if not (digits.isdigit() and digits.isascii()) or max(map(len, f[3:14])) > 20:
            continue
        n = list(map(int, f[3:14]))
        if max(n) >= 1 << 64:  # counters are unsigned long: anything bigger is junk
            continue
        # tuple.__new__ straight: the named tuple's own __new__ is a Python call per disk
        out[f[2]] = _new(DiskCounters, (f[2], n[0], n[2], n[3], n[4], n[6], n[7], n[8], n[9], n[10]))
    if not out and not seen_valid and text.strip():
        raise ParseError("/proc/diskstats: no line with 14, 18 or 20 numeric fields")
    return out


def _interval(dt_s: float) -> float | None:
    try:
        dt = float(dt_s)
    except (TypeError, ValueError, OverflowError):
        return None
    return dt if math.isfinite(dt) and dt > 0 else None


def disk_rates(prev: DiskCounters, cur: DiskCounters, dt_s: float) -> DiskIo | None:
    """Rates over dt_s seconds of wall time (use a monotonic clock or /proc/uptime deltas).
    None when the interval is not positive, the device changed, or a counter went back."""
    if not (isinstance(prev, DiskCounters) and isinstance(cur, DiskCounters)):
        return None
    dt = _interval(dt_s)
    if dt is None or prev.device != cur.device:
        return None
    reads, writes = cur.reads - prev.reads, cur.writes - prev.writes
    read_sectors, write_sectors = cur.read_sectors - prev.read_sectors, cur.write_sectors - prev.write_sectors
    read_ms, write_ms = cur.read_ms - prev.read_ms, cur.write_ms - prev.write_ms
    io_ms, weighted_ms = cur.io_ms - prev.io_ms, cur.weighted_ms - prev.weighted_ms
    if min(reads, writes, read_sectors, write_sectors, read_ms, write_ms, io_ms, weighted_ms) < 0:
        return None
    return DiskIo(
        cur.device,
        min(100.0, io_ms / (dt * 1000.0) * 100.0),  # util %, > 100 on multi-queue devices
        read_ms / reads if reads else None,
        write_ms / writes if writes else None,
        reads / dt,
        writes / dt,
        read_sectors * SECTOR / dt,
        write_sectors * SECTOR / dt,
        _queue(weighted_ms, io_ms, cur.in_flight, dt * 1000.0),
    )


def _queue(weighted_ms: int, io_ms: int, in_flight: int, ms: float) -> float | None:
    """Average requests in flight, as iostat -x's aqu-sz: the weighted time (the time each
    request spent in flight, summed as they complete) over the wall time. A device busy while
    nothing was counted either completed nothing (requests stuck in it: the kernel's count of
    those in flight now says how many) or has a source that does not keep the counter
    (psutil's fallback writes 0 for both): then unknown, not an empty queue."""
    if weighted_ms or not io_ms:
        return weighted_ms / ms
    return float(in_flight) if in_flight else None


def rates_between(
    prev: Mapping[str, DiskCounters], cur: Mapping[str, DiskCounters], dt_s: float
) -> DiskRates:
    """`disk_rates` for every device in both samples, named by device (those it gives None
    left out): the same figures, a column at a time over a thousand disks where it can."""
    dt = _interval(dt_s)
    if dt is None:
        return NO_RATES
    if isinstance(prev, DiskTable) and isinstance(cur, DiskTable):
        by_column = _rates_by_column(prev, cur, dt)
        if by_column is not None:
            return by_column
    return DiskRates.of(_rates_by_device(prev, cur, dt))


def _rates_by_device(
    prev: Mapping[str, DiskCounters], cur: Mapping[str, DiskCounters], dt: float
) -> dict[str, DiskIo]:
    out: dict[str, DiskIo] = {}
    ms = dt * 1000.0
    for dev, c in cur.items():
        p = prev.get(dev)
        if p is None or not (isinstance(p, DiskCounters) and isinstance(c, DiskCounters)) or p[0] != c[0]:
            continue
        _, reads0, rsec0, rms0, writes0, wsec0, wms0, _, io0, wt0 = p
        _, reads1, rsec1, rms1, writes1, wsec1, wms1, _, io1, wt1 = c
        reads, writes = reads1 - reads0, writes1 - writes0
        read_sectors, write_sectors = rsec1 - rsec0, wsec1 - wsec0
        read_ms, write_ms = rms1 - rms0, wms1 - wms0
        io_ms, weighted_ms = io1 - io0, wt1 - wt0
        if min(reads, writes, read_sectors, write_sectors, read_ms, write_ms, io_ms, weighted_ms) < 0:
            continue
        out[dev] = _diskio(
            c[0],
            min(100.0, io_ms / ms * 100.0),
            read_ms / reads if reads else None,
            write_ms / writes if writes else None,
            reads / dt,
            writes / dt,
            read_sectors * SECTOR / dt,
            write_sectors * SECTOR / dt,
            _queue(weighted_ms, io_ms, c[7], ms),
        )
    return out


_AWAIT, _PER_S, _BYTES_PER_S = range(3)  # what a _Made column is made of


class _Made(Sequence[float | None]):
    """A rate column made (whole) the first time it is read: the fold reads a tick's %UTIL and
    queue of every disk, the rest only for the few disks a check or a row asks about. `how`:
    _AWAIT (ms per request: time / count, None for none), _PER_S (count / dt) or _BYTES_PER_S
    (sectors x 512 / dt), over the counters' deltas `a` (and `b`, the counts an await divides
    by). The same list either way (made once: two threads reading it at once make equal ones);
    no more objects a tick than the list it stands for."""

    __slots__ = ("_a", "_b", "_dt", "_how", "_values")

    def __init__(self, how: int, a: list[int], b: list[int] | None, dt: float) -> None:
        self._how, self._dt = how, dt
        self._a: list[int] | None = a
        self._b: list[int] | None = b
        self._values: list[float | None] | None = None

    def _all(self) -> list[float | None]:
        values = self._values
        if values is None:
            a, b, dt = self._a, self._b, self._dt
            assert a is not None
            if self._how == _AWAIT:
                assert b is not None
                values = [t / n if n else None for t, n in zip(a, b)]
            elif self._how == _PER_S:
                values = [n / dt for n in a]
            else:
                values = [x * SECTOR / dt for x in a]
            self._values, self._a, self._b = values, None, None  # (the deltas, let go)
        return values

    def __len__(self) -> int:
        return len(self._all())

    @overload
    def __getitem__(self, i: int) -> float | None: ...
    @overload
    def __getitem__(self, i: slice) -> list[float | None]: ...
    def __getitem__(self, i: int | slice) -> float | list[float | None] | None:
        return self._all()[i]

    def __iter__(self) -> Iterator[float | None]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        return self._all() == (list(other) if isinstance(other, Sequence) else other)

    __hash__ = None  # type: ignore[assignment]  # (a list's equality: unhashable, as a list)

    def __repr__(self) -> str:
        return repr(self._all())


def _rates_by_column(prev: DiskTable, cur: DiskTable, dt: float) -> DiskRates | None:
    """rates_between for two files that list the same devices in the same order (the usual
    case, tick after tick), a column at a time: the same figures, by the same expressions.
    None (the caller goes device by device) when they differ or any counter went back."""
    if prev.columns is None or cur.columns is None or prev.names != cur.names or not cur.names:
        return None
    deltas = [list(map(sub, now, before)) for before, now in zip(prev.columns, cur.columns)]
    if min(min(d) for k, d in enumerate(deltas) if k != _IN_FLIGHT) < 0:
        return None
    reads, read_sectors, read_ms, writes, write_sectors, write_ms, _, io_ms, weighted_ms = deltas
    ms = dt * 1000.0
    return DiskRates(
        cur.names,
        (
            [min(100.0, x / ms * 100.0) for x in io_ms],
            # (the awaits, rates and bytes are read for a few disks a tick, if any: made when read)
            _Made(_AWAIT, read_ms, reads, dt),
            _Made(_AWAIT, write_ms, writes, dt),
            _Made(_PER_S, reads, None, dt),
            _Made(_PER_S, writes, None, dt),
            _Made(_BYTES_PER_S, read_sectors, None, dt),
            _Made(_BYTES_PER_S, write_sectors, None, dt),
            [  # _queue, inline: a call per disk is most of its cost at 5,000 disks
                w / ms if w or not b else (float(f) if f else None)
                for w, b, f in zip(weighted_ms, io_ms, cur.columns[_IN_FLIGHT])
            ],
        ),
    )
