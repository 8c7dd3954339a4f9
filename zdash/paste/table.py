"""Shared pieces for the pasted tables (`zpool list`, `zpool iostat`, `zfs list`): row
tokens with their depth, separator lines, human numbers as plain values."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, TypeAlias

from zdash.model import VdevClass
from zdash.parse import ParseError
from zdash.parse.classes import TABLE_HEADINGS
from zdash.parse.units import parse_duration_ns, parse_size
from zdash.paste.lines import width

_DASHES = re.compile(r"-{2,}(?:\s+-{2,})*")
_PCT = re.compile(r"([0-9]{1,3}(?:\.[0-9]{1,4})?)%?", re.ASCII)
_RATIO = re.compile(r"([0-9]{1,9}(?:\.[0-9]{1,4})?)x?", re.ASCII)


# A line of a block that could not be read: (line number, its text, why).
Unreadable: TypeAlias = tuple[int, str, str]


class TreeRow(Protocol):
    """A row of a pasted vdev table (zpool list -v, zpool iostat -v): where it sits in the tree."""

    @property
    def n(self) -> int: ...  # line number in the paste

    @property
    def depth(self) -> int: ...  # 0: the pool row

    @property
    def name(self) -> str: ...

    @property
    def vclass(self) -> VdevClass: ...


@dataclass(frozen=True, slots=True)
class Row:
    n: int  # line number in the paste
    width: int  # leading whitespace, tabs at 8
    words: tuple[str, ...]


_VALUE = re.compile(r"-|[0-9][0-9.,]{0,24}[KMGTPEZ]?(?:B|ns|us|ms|s|%|x)?", re.ASCII)


# A mark a user put into a row to point at it ("*", "<--", "-->"): not a column.
_MARK = re.compile(r"[*#^!|]{1,5}|<-{1,5}|-{1,5}>|<={1,5}|={1,5}>")


def unmarked(words: tuple[str, ...]) -> tuple[str, ...]:
    """A row's words without the marks a user added to point at it (the name is kept)."""
    return words[:1] + tuple(w for w in words[1:] if not _MARK.fullmatch(w))


def looks_like_row(line: str, values: int = 1) -> bool:
    """A name followed by at least `values` numbers, human numbers or '-' (not prose)."""
    words = line.split()
    return len(words) > values and all(_VALUE.fullmatch(w) for w in words[1 : values + 1])


def is_dashes(text: str) -> bool:
    return bool(_DASHES.fullmatch(text.strip()))


def row(n: int, line: str) -> Row:
    return Row(n, width(line), tuple(line.split()))


def ranks(rows: list[Row]) -> dict[int, int]:
    """Depth of each indentation width: its rank among the widths used (0, 2, 4 or 0, 4, 8...)."""
    return {w: k for k, w in enumerate(sorted({r.width for r in rows}))}


def is_class_row(words: tuple[str, ...]) -> bool:
    return words[0] in TABLE_HEADINGS and all(w == "-" for w in words[1:])


_COMMA = re.compile(r"([0-9]{1,3}),([0-9]{1,4})(?=[A-Za-z%]*$)")


def decimal(token: str) -> str:
    """'6,22T' -> '6.22T': zfs_nicenum() formats with printf, so a locale can make the
    decimal separator a comma (openzfs/zfs#5186); nicenum never prints a thousands separator."""
    return _COMMA.sub(r"\1.\2", token)


def size(token: str) -> int | None:
    return parse_size(decimal(token))


def count(token: str) -> float:
    """An ops or bandwidth rate: '-' (no I/O) is 0 here, as zpool iostat -p prints it."""
    value = parse_size(decimal(token))
    return float(value or 0)


def latency(token: str) -> int | None:
    return parse_duration_ns(decimal(token))


def pct(token: str) -> float | None:
    return _matched(token, _PCT, "percentage")


def ratio(token: str) -> float | None:
    return _matched(token, _RATIO, "ratio")


def _matched(token: str, pattern: re.Pattern[str], what: str) -> float | None:
    """A number in one of zpool's decorated forms ('11.9%', '1.00x'); '-' is no value."""
    token = decimal(token)
    if token == "-":
        return None
    m = pattern.fullmatch(token)
    if m is None:
        raise ParseError(f"not a {what}: {token[:20]!r}")
    return float(m.group(1))


def num(value: float | int | None, integer: bool = True) -> str:
    """A value as the -H -p layouts print it: '-' for unknown."""
    if value is None:
        return "-"
    if integer:
        return str(int(value))
    return f"{value:g}"
