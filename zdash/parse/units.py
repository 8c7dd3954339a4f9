"""zpool's human-readable numbers, durations and dates, turned into plain integers.

Every function takes the exact token zpool printed and returns an int (or epoch seconds),
None for zpool's '-' placeholder, or raises ParseError. Reference: §0 "Human numbers" and
"Dates" rows of docs/zfs-output-reference.md (`lib/libzutil/zutil_nicenum.c`).
"""

from __future__ import annotations

import calendar
import re

from zdash.parse import ParseError

# zfs_nicenum()/zfs_nicebytes(): base 1024, 3 significant digits, no 'B' except "512B" below
# 1 KiB ("0B" for zero bytes). Both forms go through one regex.
_NICENUM = re.compile(r"([0-9]{1,20}(?:\.[0-9]{1,10})?)([KMGTPEZ]?)B?", re.ASCII)
_POWERS = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6, "Z": 7}

# ZFS_NICENUM_TIME: base 1000 and a unit word (ns/us/ms/s), e.g. "250us", "1.20ms".
_NICETIME = re.compile(r"([0-9]{1,20}(?:\.[0-9]{1,10})?)(ns|us|ms|s)", re.ASCII)
_NS_PER = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}

# secs_to_dhms(): "HH:MM:SS" or "N days HH:MM:SS"; 0.8 always prints the days part (§3.3).
# Pre-0.8 zpool printed "2h54m"; accepted so old pastes do not lose the scan.
_DHMS = re.compile(r"(?:([0-9]{1,9}) days? )?([0-9]{1,9}):([0-9]{2}):([0-9]{2})", re.ASCII)
_HM = re.compile(r"([0-9]{1,9})h([0-9]{1,2})m", re.ASCII)

# ctime(): "Sun Nov 22 03:40:05 2026" (day padded with a space: "Thu Apr  8 ..."). The JSON
# timestamps without --json-int add the zone: "Sun Nov 22 03:40:05 UTC 2026" (§4.2).
_CTIME = re.compile(
    r"[A-Z][a-z]{2} ([A-Z][a-z]{2}) {1,2}([0-9]{1,2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?: ([A-Za-z][A-Za-z0-9+-]{0,9}))? ([0-9]{4})",
    re.ASCII,
)
_MONTHS = {m: i for i, m in enumerate(calendar.month_abbr) if m}
_UTC_NAMES = frozenset({"UTC", "GMT", "Z", "UCT"})


def _scaled(text: str, pattern: re.Pattern[str], what: str) -> tuple[float | int, str]:
    m = pattern.fullmatch(text.strip())
    if m is None:
        raise ParseError(f"not a zpool {what}: {text[:40]!r}")
    number, unit = m.groups()
    return (float(number) if "." in number else int(number)), unit


def parse_size(text: str) -> int | None:
    """Bytes from "512", "512B", "1.50K", "12.3M", "0B"; None for '-'."""
    if text.strip() == "-":
        return None
    value, suffix = _scaled(text, _NICENUM, "size")
    return round(value * (1 << 10 * _POWERS[suffix]))  # 1024 ** power, as an int


def size_step(text: str) -> int:
    """What one unit of the last digit zpool printed is worth in bytes: 1 for exact bytes,
    10 for "1.50K", 1 GiB for "922G" (the figure is that value give or take half of it)."""
    m = _NICENUM.fullmatch(text.strip())
    if m is None:
        raise ParseError(f"not a zpool size: {text[:40]!r}")
    number: str = m.group(1)
    worth: int = round((1 << 10 * _POWERS[m.group(2)]) / 10 ** len(number.partition(".")[2]))
    return max(1, worth)


def parse_count(text: str) -> int | None:
    """Error/slow counters: exact under -p, nicenum ("1.68K" = 1720) without it (§3)."""
    return parse_size(text)


def parse_duration_ns(text: str) -> int | None:
    """Latency "250us" / "12ms" / "1.20s" to nanoseconds; '-' (a zero time) is None."""
    if text.strip() == "-":
        return None
    value, unit = _scaled(text, _NICETIME, "time")
    return round(value * _NS_PER[unit])


def parse_dhms(text: str) -> int:
    """Seconds from "00:13:01", "1 days 02:55:32" (or pre-0.8 "2h54m")."""
    text = text.strip()
    m = _DHMS.fullmatch(text)
    if m is not None:
        days, hours, minutes, seconds = (int(g) if g else 0 for g in m.groups())
        return ((days * 24 + hours) * 60 + minutes) * 60 + seconds
    m = _HM.fullmatch(text)
    if m is not None:
        return (int(m.group(1)) * 60 + int(m.group(2))) * 60
    raise ParseError(f"not a zpool duration: {text[:40]!r}")


def parse_ctime(text: str) -> int | None:
    """Epoch seconds from a zpool date, read as UTC (zdash runs zpool with TZ=UTC, §0).

    None when the text carries a zone other than UTC (we cannot know its offset) or is not
    a real date: a wrong time would be worse than an unknown one.
    """
    m = _CTIME.fullmatch(text.strip())
    if m is None:
        raise ParseError(f"not a zpool date: {text[:40]!r}")
    month, day, hh, mm, ss, zone, year = m.groups()
    if month not in _MONTHS or (zone is not None and zone.upper() not in _UTC_NAMES):
        return None
    fields = (int(year), _MONTHS[month], int(day), int(hh), int(mm), int(ss))
    if not (
        1 <= fields[2] <= calendar.monthrange(fields[0], fields[1])[1]
        and fields[3] < 24
        and fields[4] < 60
        and fields[5] < 61
    ):
        return None
    return calendar.timegm(fields + (0, 0, 0))
