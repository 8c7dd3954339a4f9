"""`zpool events -v` (optionally `-H`, `-f`): ZFS's own event log, the ereports ZED acts on.

Layout (zpool_do_events() / zpool_events_next() in cmd/zpool/zpool_main.c, 0.6.3 to 2.4): a
`TIME CLASS` header unless -H, then per event one line `Mon DD YYYY HH:MM:SS.NNNNNNNNN CLASS`
(-H: TAB between them) and, with -v, its nvlist as TAB-indented `name = value` lines (nested
lists between `name = (embedded nvlist)` and `(end name)`), then a blank line. Numbers print in
hex (`0x1f`), strings quoted, `time = 0x<sec> 0x<nsec>`. "dropped N events" lines note a full
ring buffer (zfs_zevent_len_max). A stream read mid-event (`-f`) may end in a partial event:
it is kept if its header line is complete.

Only what zdash uses is kept: the class, time, pool, the vdev (GUID in decimal, as `zpool
status -j` prints it, and path), the event id, and for delay events the I/O's delay.
"""

from __future__ import annotations

import calendar
import re

from zdash.model import ZEvent
from zdash.parse import ParseError

_HEAD = re.compile(
    r"^([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{4}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?[ \t]+(\S+)\s*$"
)
_FIELD = re.compile(r"^\s+([A-Za-z0-9_.]+) = (.*?)\s*$")
_MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), start=1
    )
}
MAX_EVENTS = 100_000  # far beyond zfs_zevent_len_max: a guard against garbage, not a limit in use


def _number(text: str) -> int | None:
    try:
        return int(text, 16) if text.startswith(("0x", "0X")) else int(text)
    except ValueError:
        return None


def _string(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def _header_time(m: re.Match[str]) -> float | None:
    month = _MONTHS.get(m.group(1))
    if month is None:
        return None
    try:
        secs = calendar.timegm(
            (int(m.group(3)), month, int(m.group(2)), int(m.group(4)), int(m.group(5)), int(m.group(6)))
        )
    except (ValueError, OverflowError):
        return None
    frac = m.group(7)
    return secs + (int(frac) / 10 ** len(frac) if frac else 0.0)


def parse_events(text: str) -> tuple[ZEvent, ...]:
    """Every event in the text, oldest first. Raises ParseError only on input that is not text."""
    if not isinstance(text, str):
        raise ParseError(f"zpool events: expected text, got {type(text).__name__}")
    events: list[ZEvent] = []
    current: dict[str, str] | None = None
    head: tuple[float, str] | None = None
    depth = 0

    def close() -> None:
        if head is None or len(events) >= MAX_EVENTS:
            return
        f = current or {}
        when = head[0]
        stamp = f.get("time", "").split()
        if (
            len(stamp) == 2
            and (sec := _number(stamp[0])) is not None
            and (ns := _number(stamp[1])) is not None
        ):
            when = sec + ns / 1e9
        guid = _number(f.get("vdev_guid", ""))
        delay = _number(f.get("zio_delay", "")) if head[1].endswith(".delay") else None
        events.append(
            ZEvent(
                time=when,
                cls=head[1],
                pool=_string(f["pool"]) if "pool" in f else None,
                vdev_guid=str(guid) if guid is not None else None,
                vdev_path=_string(f["vdev_path"]) if f.get("vdev_path") else None,
                eid=_number(f.get("eid", "")),
                delay_ns=delay,
            )
        )

    for line in text.splitlines():
        m = _HEAD.match(line)
        if m is not None:
            close()
            when = _header_time(m)
            head = (when, m.group(8)) if when is not None else None
            current, depth = {}, 0
            continue
        if head is None or current is None:
            continue  # the TIME CLASS header, "dropped N events", prose
        if line.strip().startswith("(end "):
            depth = max(depth - 1, 0)
            continue
        f = _FIELD.match(line)
        if f is None:
            continue
        if f.group(2) == "(embedded nvlist)" or f.group(2).startswith("(array of embedded nvlists)"):
            depth += 1
            continue
        if depth == 0:
            current[f.group(1)] = f.group(2)
    close()
    return tuple(events)
