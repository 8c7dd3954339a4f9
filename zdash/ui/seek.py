"""What the viewer may type to seek a replay: a clock time, a jump, a fraction or a tick."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Literal

_REL = re.compile(r"^([+-])\s*(\d+(?:\.\d+)?)\s*([smh]?)$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?$")
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600}

SeekKind = Literal["time", "index"]
SeekTarget = tuple[SeekKind, float]  # ("time", epoch s) or ("index", tick index)

HELP = "13:05:20 (clock), +30s / -2m (jump), 50% (of the span), #12 (tick)"


class SeekError(ValueError):
    pass


def parse_seek(text: str, now: float, start: float, end: float, count: int) -> SeekTarget:
    """("time", epoch s) or ("index", i). Clock times are read in the viewer's zone, on the
    recording's first day, or the next day when that falls inside the recording."""
    t = text.strip().lower()
    if m := _REL.match(t):
        sign = 1 if m[1] == "+" else -1
        return "time", now + sign * float(m[2]) * _UNIT[m[3]]
    if t.endswith("%"):
        try:
            frac = float(t[:-1]) / 100
        except ValueError:
            raise SeekError(f"not a percentage: {text!r}") from None
        return "time", start + (end - start) * min(max(frac, 0.0), 1.0)
    if t.startswith("#"):
        if not t[1:].isdigit():
            raise SeekError(f"not a tick number: {text!r}")
        return "index", float(min(max(int(t[1:]) - 1, 0), count - 1))
    if m := _CLOCK.match(t):
        h, mi, s = int(m[1]), int(m[2]), int(m[3] or 0)
        if h > 23 or mi > 59 or s > 59:
            raise SeekError(f"not a time of day: {text!r}")
        day = _dt.datetime.fromtimestamp(start).replace(hour=h, minute=mi, second=s, microsecond=0)
        target = day.timestamp()
        if target < start and (target + 86400) <= end:
            target += 86400
        return "time", target
    raise SeekError(f"cannot read {text!r}; try {HELP}")
