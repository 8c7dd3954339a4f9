"""The kernel log, as `journalctl -k -o short-iso-precise` or `dmesg --time-format iso` print it
(and, from pastes, plain `dmesg` or `journalctl -k`), into KernelLines; and which of them name
a disk.

Line shapes:
- journalctl short-iso(-precise): `2026-11-28T15:35:16.595328+0000 host kernel: ata3: …`
  (`+00:00` from systemd 250 on);
- dmesg --time-format iso: `2026-11-28T15:35:16,595328+00:00 ata3: …`;
- plain dmesg `[   5.123456] ata3: …` and journalctl's default `Nov 28 15:35:16 host kernel: …`
  carry no absolute time (seconds since boot, or no year): their time is None.

The text is outside input (a USB stick's model string, anything a driver prints): control
characters are dropped and each line capped before it is kept.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable

from zdash.model import KernelLine
from zdash.parse import ParseError

MAX_LINE = 400  # characters kept of one line: a kernel line is under 1 KiB, a shown one far less
MAX_LINES = 200_000  # a ring buffer holds a few thousand; far more is not a kernel log
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(?:([+-])(\d{2}):?(\d{2})|Z)\s",
    re.ASCII,
)
_JOURNAL_PREFIX = re.compile(r"\S+ kernel: ")  # "host kernel: " after the time
_BRACKETED = re.compile(r"\[\s*\d{1,10}\.\d{1,9}\]\s?", re.ASCII)  # plain dmesg
_SYSLOG = re.compile(r"[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} ", re.ASCII)
_JOURNAL_NOTES = ("-- No entries --", "-- Logs begin at", "-- Journal begins at", "-- Boot ")


def parse_kernel_log(text: str) -> tuple[KernelLine, ...]:
    if not isinstance(text, str):
        raise ParseError(f"kernel log: expected text, got {type(text).__name__}")
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise ParseError(f"kernel log: {len(lines)} lines is not a kernel log")
    out = []
    last: float | None = None
    for raw in lines:
        line = raw.rstrip()
        if not line.strip() or line.startswith(_JOURNAL_NOTES):
            continue
        when, message = _split(line)
        if when is None and line[:1].isspace():
            when = last  # a message's continuation line (dmesg indents it): the same moment
        last = when
        clean = _CONTROL.sub("", message).strip()
        if not clean:
            continue
        out.append(KernelLine(when, clean if len(clean) <= MAX_LINE else clean[: MAX_LINE - 1] + "…"))
    return tuple(out)


def _split(line: str) -> tuple[float | None, str]:
    m = _ISO.match(line)
    if m:
        rest = line[m.end() :]
        journal = _JOURNAL_PREFIX.match(rest)
        return _epoch(m), rest[journal.end() :] if journal else rest
    m2 = _BRACKETED.match(line)
    if m2:
        return None, line[m2.end() :]
    m3 = _SYSLOG.match(line)
    if m3:
        rest = line[m3.end() :]
        journal = _JOURNAL_PREFIX.match(rest)
        return None, rest[journal.end() :] if journal else rest
    return None, line


def _epoch(m: re.Match[str]) -> float | None:
    year, month, day, hour, minute, second, frac, sign, zh, zm = m.groups()
    try:
        t = calendar.timegm((int(year), int(month), int(day), int(hour), int(minute), int(second)))
    except (ValueError, OverflowError):
        return None
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31 and int(hour) < 24 and int(minute) < 60):
        return None
    if sign:
        offset = int(zh) * 3600 + int(zm) * 60
        t -= offset if sign == "+" else -offset
    return t + (float(f"0.{frac}") if frac else 0.0)


def name_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern finding any of `names` as a whole word (sdb, not sdba or xsdb; ata3 in
    "ata3.00:" and "ata3:", not in "ata31"). None when there is nothing to look for."""
    words = sorted({n for n in names if n and len(n) >= 3}, key=len, reverse=True)
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![A-Za-z0-9_])")


def naming(
    lines: Iterable[KernelLine], names: Iterable[str], since: float | None = None, last: int = 20
) -> tuple[KernelLine, ...]:
    """The last `last` lines that name one of `names`, from `since` on (a line without a time
    is kept: it cannot be placed, and the caller says so)."""
    pattern = name_pattern(names)
    if pattern is None:
        return ()
    found = [
        ln
        for ln in lines
        if (since is None or ln.time is None or ln.time >= since) and pattern.search(ln.text)
    ]
    return tuple(found[-last:]) if last > 0 else ()


def kernel_log_argv(since: float | None, reader: str = "journalctl") -> tuple[str, ...]:
    """The kernel log from `since` (epoch s) on: journalctl (the current boot, ISO times with
    microseconds, its last 2,000 lines at most), or dmesg where there is no journal (the ring
    buffer, ISO times; every line: dmesg before util-linux 2.38 has no --since)."""
    if reader == "dmesg":
        return ("dmesg", "--time-format", "iso")
    argv = ("journalctl", "-k", "-o", "short-iso-precise", "--no-pager", "-q", "-n", "2000")
    return argv + (("--since", f"@{int(since)}") if since is not None else ())
