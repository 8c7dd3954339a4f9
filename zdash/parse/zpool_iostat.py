"""`zpool iostat -v -H -p [-l] [-y] -T u <interval>`: split the stream, parse one report.

Traps (reference §2.2, §2.3, §12.2, §12.4): under -H the depth is gone and a blank line is the
only class marker; nothing separates pools; a zero latency prints '-' even with -p (no I/O,
not 0 ns); leaf alloc/free print 0 under -p. -l adds 10 latency columns (0.8-2.1) or 11 (2.2+,
rebuild); the first four are total_wait r/w and disk_wait r/w in both.

Stream shape (zpool_do_iostat() in master, and checked on 2.3.2 in zfslab): -T u prints its
epoch line under -H too, and print_timestamp() runs *before* the -y skip test, so the stream
opens with an epoch line whose report is empty; each later epoch line starts a report. A
report is known complete only when the next epoch line arrives, an interval later, or when
the reader sees the pipe go quiet (zpool fflush()es once per report): StreamSplitter.flush().
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import cast, overload

from zdash.model import IoStats, builder_of
from zdash.parse import ParseError

_EPOCH = re.compile(r"\d{1,20}", re.ASCII)  # `-T u`: printf("%lld\n", time(NULL)); rows have TABs
_INT = re.compile(r"\d{1,20}", re.ASCII)  # u64 counters; bounded so int() cannot blow up
# numeric columns -> latency columns present: none, 0.8-2.1 -l, 2.2+ -l, and -l -q in both.
_LAYOUTS = {6: 0, 16: 10, 17: 11, 28: 10, 31: 11}
_MAX_PENDING = 1 << 20  # chars buffered without an epoch line before we give up


@dataclass(frozen=True, slots=True)
class IostatRow:
    name: str
    group: int  # 0 = pool + normal vdevs; +1 at each blank line (dedup/special/logs/cache)
    alloc: int | None  # bytes; 0 on leaves under -p, '-' -> None
    free: int | None
    io: IoStats


_row = builder_of(IostatRow)  # the fast constructors (a row is built only when read)
_io = builder_of(IoStats)


class IostatReport(Sequence[IostatRow]):
    """One report, kept as the columns it was read into: the rows' names, class groups,
    alloc/free, and IoStats' eight figures (read_ops ... disk_wait_write, in IoStats' order),
    one list each. A row (IostatRow) or a vdev's IoStats is built only when read: the fold
    reads the columns, so a tick costs no object per vdev."""

    __slots__ = ("alloc", "columns", "free", "groups", "names")

    def __init__(
        self,
        names: tuple[str, ...],
        groups: Sequence[int],
        alloc: Sequence[int | None],
        free: Sequence[int | None],
        columns: tuple[Sequence[float | None], ...],
    ) -> None:
        self.names, self.groups, self.alloc, self.free, self.columns = names, groups, alloc, free, columns

    @classmethod
    def of(cls, rows: Sequence[IostatRow]) -> IostatReport:
        ios = [r.io for r in rows]
        columns = tuple(
            [getattr(io, f) for io in ios]
            for f in (
                "read_ops",
                "write_ops",
                "read_bytes",
                "write_bytes",
                "total_wait_read",
                "total_wait_write",
                "disk_wait_read",
                "disk_wait_write",
            )
        )
        return cls(
            tuple(r.name for r in rows),
            [r.group for r in rows],
            [r.alloc for r in rows],
            [r.free for r in rows],
            columns,
        )

    def io(self, i: int) -> IoStats:
        """Row i's figures (a new IoStats, equal to the row's)."""
        c = self.columns
        return _io(c[0][i], c[1][i], c[2][i], c[3][i], c[4][i], c[5][i], c[6][i], c[7][i])

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, i: int) -> IostatRow: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[IostatRow, ...]: ...
    def __getitem__(self, i: int | slice) -> IostatRow | tuple[IostatRow, ...]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self.names))))
        i = range(len(self.names))[i]  # negative indexes, IndexError as a tuple gives them
        return _row(self.names[i], self.groups[i], self.alloc[i], self.free[i], self.io(i))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IostatReport):
            return (self.names, list(self.groups), list(self.alloc), list(self.free)) == (
                other.names,
                list(other.groups),
                list(other.alloc),
                list(other.free),
            ) and all(list(a) == list(b) for a, b in zip(self.columns, other.columns))
        if isinstance(other, (tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"IostatReport({tuple(self)!r})"


EMPTY_REPORT = IostatReport((), (), (), (), ((),) * 8)


def _is_epoch(line: str) -> bool:
    return bool(_EPOCH.fullmatch(line.strip()))


def split_reports(text: str) -> list[tuple[int | None, str]]:
    """(epoch, report text) per `-T u` line, in order, empty reports (the -y skip) and the
    trailing, possibly incomplete, report included; each text exactly as printed, newlines
    kept (the same text StreamSplitter gives). Text before the first epoch line comes first
    with epoch None, but only if it holds something."""
    if not isinstance(text, str):
        raise ParseError(f"zpool iostat: expected text, got {type(text).__name__}")
    parts = text.split("\n")  # the last part is what follows the last newline ('' usually)
    last = len(parts) - 1
    # Rows carry a TAB between their fields, epoch lines none: the regex runs only on the few
    # lines without one.
    marks = [i for i, line in enumerate(parts) if "\t" not in line.strip() and _is_epoch(line)]
    reports: list[tuple[int | None, str]] = []
    for k, end in enumerate([*marks, len(parts)]):
        start = marks[k - 1] + 1 if k else 0
        lines = parts[start:end]
        if k == 0 and not any(s.strip() for s in lines):
            continue  # nothing before the first epoch line
        if end <= last:  # every line of it ended with a newline
            body = "\n".join(lines) + "\n" if lines else ""
        else:  # it runs to the end of the text: its last line only if it has one
            body = "\n".join(lines)
        reports.append((int(parts[marks[k - 1]]) if k else None, body))
    return reports


class StreamSplitter:
    """Feed arbitrary chunks of the live stream; get back each report once the next epoch line
    shows it complete. Lines before the first epoch line and empty reports are dropped."""

    def __init__(self) -> None:
        self._reset()
        # Lines of the last report an epoch line completed: what a quiet pipe must have shown
        # before its report counts as whole (see flush).
        self._whole_lines: int | None = None

    def _reset(self) -> None:
        self._partial: list[str] = []  # pieces of the line still waiting for its newline
        self._partial_len = 0
        self._epoch: int | None = None
        self._lines: list[str] = []
        self._held = 0  # chars since the last epoch line: bounded (see feed)

    def feed(self, chunk: str) -> list[tuple[int, str]]:
        if not isinstance(chunk, str):
            raise ParseError(f"zpool iostat stream: expected text, got {type(chunk).__name__}")
        done: list[tuple[int, str]] = []
        if "\n" not in chunk:  # no line completed: O(1), whatever the chunk size
            self._partial.append(chunk)
            self._partial_len += len(chunk)
        else:
            *complete, last = ("".join(self._partial) + chunk).split("\n")
            self._partial, self._partial_len = [last], len(last)
            for line in complete:
                if _is_epoch(line):
                    report = self._take()
                    if report is not None:
                        done.append(report)
                    self._epoch, self._held = int(line), 0
                    continue
                if self._epoch is not None:
                    self._lines.append(line)
                self._held += len(line) + 1
        if self._held + self._partial_len > _MAX_PENDING:  # -T u missing, or not iostat at all
            self._reset()
            raise ParseError("zpool iostat stream: no -T u epoch line in 1 MiB of output")
        return done

    def flush(self, quiet: bool = False) -> tuple[int, str] | None:
        """The pending report (at EOF, or when the pipe has gone quiet), then forget it.

        quiet: the pipe only paused. zpool writes a big report in pipe-buffer pieces as it
        formats the rows; on a starved CPU (a 1,000-disk report in the lab VM) the pieces come
        with pauses, and a pause read as the end cut the report short: a tree missing most of
        its disks, every tick. A pause now ends a report only once it holds as many lines as the
        last report an epoch line completed (none known yet: the next epoch line decides)."""
        last = "".join(self._partial)
        if quiet and (self._whole_lines is None or len(self._lines) + bool(last) < self._whole_lines):
            return None
        if last and self._epoch is not None and not _is_epoch(last):
            self._lines.append(last)
        report = self._take()
        self._reset()
        return report

    def _take(self) -> tuple[int, str] | None:
        lines, self._lines = self._lines, []
        if self._epoch is None or not any(s.strip() for s in lines):
            return None
        self._whole_lines = len(lines)
        return self._epoch, "\n".join(lines) + "\n"


def _count(s: str, n: int) -> int | None:
    # str methods, not a regex: this runs for every field of every row of every report.
    if s.isdigit() and s.isascii() and len(s) <= 20:
        return int(s)
    if s == "-":
        return None
    raise ParseError(f"zpool iostat line {n}: {s[:20]!r} is not an integer (run with -p)")


def parse_iostat(text: str) -> IostatReport:
    """One report (a leading epoch line is tolerated). Several pools: rows in order."""
    if not isinstance(text, str):
        raise ParseError(f"zpool iostat: expected text, got {type(text).__name__}")
    rows = _plain_report(text)
    return rows if rows is not None else IostatReport.of(_report_by_line(text))


def _plain_report(text: str) -> IostatReport | None:
    """The usual report, rows of one known -l layout and blank lines between class groups, read
    in bulk: the rows joined and split into one flat list of fields, each figure zdash uses taken
    a column at a time (a slice of that list) and checked and converted by C loops over the
    column; no Python step per row or per field. None for anything else (an epoch line, rows of
    different widths, a figure neither a number nor '-'): the line-by-line reader then says
    what is wrong, where."""
    lines = text.split("\n")
    tabs = list(map(str.count, lines, repeat("\t")))
    width = max(tabs, default=0)
    if not _LAYOUTS.get(width):
        return None  # no -l columns (or none at all): the line reader
    groups: list[int] = []
    rows: list[str] = []
    group = start = 0
    # Group breaks: the few lines without a TAB, each of which must be blank.
    for end in [i for i, n in enumerate(tabs) if n != width] + [len(lines)]:
        if end < len(lines) and (tabs[end] or lines[end].strip()):
            return None  # a row of another width, an epoch line, a stray word
        if end > start:
            segment = lines[start:end]
            group = group + 1 if rows else 0  # blank lines before any row open no group
            rows += segment
            groups += [group] * len(segment)
        start = end + 1
    if not rows:
        return None
    flat = "\t".join(rows).split("\t")
    w = width + 1
    names = flat[0::w]
    if not all(names):
        return None
    alloc, free = (_counts(flat[i::w], None) for i in (1, 2))
    # ops and bandwidth ('-': none this interval, 0), then the four waits ('-': unmeasured); the
    # total waits, which only a row read alone needs (a slow disk's evidence), made when asked
    figures = [
        (_deferred if i in (7, 8) else _figures)(flat[i::w], 0.0 if i < 7 else None) for i in range(3, 11)
    ]
    columns = [c for c in figures if c is not None]
    if alloc is None or free is None or len(columns) != len(figures):
        return None
    return IostatReport(tuple(names), groups, alloc, free, tuple(columns))


def _ints(column: list[str]) -> list[int] | None:
    """A column of u64 counters (ASCII digits, at most 20 each) as ints, read as one JSON array:
    json's C reader makes them in about half the time of int() a field at a time. None when
    any field is not one, or JSON refuses it (leading zeros, an empty field): the callers then
    go field by field."""
    if not _digits(column):
        return None
    try:
        values: list[int] = json.loads("[" + ",".join(column) + "]")
    except ValueError:
        return None
    # (no leading zeros: at most 20 digits is below 10**20)
    return values if max(values) < 10**20 else None


def _floats(column: list[str]) -> list[float] | None:
    """_ints as floats: each field (ASCII digits, checked first) through float() straight, a C
    loop (map): float() of a numeral is correctly rounded, as float(int) is (the same floats),
    in about three quarters of the time of json's reader. None as _ints (an empty field too)."""
    if not _digits(column):
        return None
    try:
        values = list(map(float, column))
    except ValueError:  # an empty field
        return None
    # (at most 20 digits is below 10**20; a 20-digit figure whose float rounds up to 1e20 goes
    # field by field, to the same float)
    return values if max(values) < 10**20 else None


def _digits(column: list[str]) -> bool:
    """Every field ASCII digits, at most 20 of them (empty fields not told apart)."""
    digits = "".join(column)
    # Lengths first: json makes an int of any length (quadratic in its digits on a Python
    # without int_max_str_digits, before 3.10.7), and the output may come from another host.
    return bool(column and digits.isdigit() and digits.isascii()) and max(map(len, column)) <= 20


def _counts(column: list[str], dash: None) -> list[int | None] | None:
    """A column of u64 counters as ints, '-' as `dash`; None if any field is neither."""
    values = _ints(column)
    if values is not None:
        return list(values)
    if all(s == "-" or _digits([s]) for s in column):
        return [dash if s == "-" else int(s) for s in column]
    return None


def _figures(column: list[str], dash: float | None) -> list[float | None] | None:
    """A column of u64 figures as floats, '-' as `dash`; None if any field is neither. The
    usual column (no '-') in one C loop (_floats); one with '-' (the waits of the leaves that
    did no I/O) its numerals checked the same way; else each field through int (float(int)
    rounds once, as float(text) would)."""
    values = _floats(column)
    if values is not None:
        return cast("list[float | None]", values)  # (a list of floats, never None)
    numerals = [s for s in column if s != "-"]
    if len(numerals) < len(column) and (not numerals or _floats(numerals) is not None):
        return [dash if s == "-" else float(s) for s in column]
    if all(s == "-" or _digits([s]) for s in column):
        return [dash if s == "-" else float(int(s)) for s in column]
    return None


class _Deferred(Sequence[float]):
    """A figure column that no reader of every row needs each tick (zpool's total waits: the
    checks read a slow disk's row alone, the dashboard its visible rows), its fields checked when
    the report was read (ASCII digits, 1 to 19 of them: what _floats reads to the same floats)
    and made floats when asked: a field alone, or the whole column once it is read whole."""

    __slots__ = ("_fields", "_values")

    def __init__(self, fields: list[str]) -> None:
        self._fields = fields
        self._values: list[float] | None = None

    def _all(self) -> list[float]:
        if self._values is None:
            self._values = list(map(float, self._fields))
        return self._values

    def __len__(self) -> int:
        return len(self._fields)

    @overload
    def __getitem__(self, i: int) -> float: ...
    @overload
    def __getitem__(self, i: slice) -> list[float]: ...
    def __getitem__(self, i: int | slice) -> float | list[float]:
        if self._values is not None or isinstance(i, slice):
            return self._all()[i]
        return float(self._fields[i])

    def __iter__(self) -> Iterator[float]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        return list(self) == (list(other) if isinstance(other, Sequence) else other)

    __hash__ = None  # type: ignore[assignment]  # (a list's equality: unhashable, as a list)

    def __repr__(self) -> str:
        return repr(self._all())


def _deferred(column: list[str], dash: float | None) -> Sequence[float | None] | None:
    """_figures, made floats only when read (_Deferred), for the usual column: every field a
    numeral of 1 to 19 digits (below 10**19, so no float of it rounds to 10**20); else now."""
    digits = "".join(column)
    if column and digits.isdigit() and digits.isascii() and all(column) and max(map(len, column)) < 20:
        return _Deferred(column)
    return _figures(column, dash)


def _report_by_line(text: str) -> tuple[IostatRow, ...]:
    rows: list[IostatRow] = []
    group, gap = 0, False
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            gap = bool(rows)  # leading / repeated blank lines open no group
            continue
        if "\t" not in line:
            if _is_epoch(line) and not rows:
                continue
            what = (
                "a second epoch line (split the stream first)"
                if _is_epoch(line)
                else f"no TAB (not -H output?): {line.strip()[:40]!r}"
            )
            raise ParseError(f"zpool iostat line {n}: {what}")
        vals = line.split("\t")
        name = vals[0]
        nlat = _LAYOUTS.get(len(vals) - 1)
        if not name or nlat is None:
            raise ParseError(
                f"zpool iostat line {n}: {len(vals) - 1} values after the name, "
                f"expected one of {sorted(_LAYOUTS)}"
            )
        if gap:
            group, gap = group + 1, False
        # The fields zdash uses (capacity, ops, bandwidth, the four total/disk waits), the common
        # case inline: a function call per field is most of the cost at 1,000 disks. The queue
        # and scrub/trim/rebuild latency columns after them are not read.
        head = vals[1:11]
        digits = "".join(head)  # one C-level check for a row with no '-': the busy pool's case
        if nlat and digits.isdigit() and digits.isascii() and all(head) and max(map(len, head)) <= 20:
            rows.append(_row(name, group, int(head[0]), int(head[1]), _io(*map(float, map(int, head[2:10])))))
            continue
        v = [int(s) if s.isdigit() and s.isascii() and len(s) <= 20 else _count(s, n) for s in head]
        ops_bw = [float(x) if x is not None else 0.0 for x in v[2:6]]
        lat = [float(x) if x is not None else None for x in v[6:10]] if nlat else [None] * 4
        rows.append(_row(name, group, v[0], v[1], _io(*ops_bw, *lat)))
    return tuple(rows)
