"""Every number zdash shows, formatted in one place. Two families, for two places:

- prose (fmt_*): finding titles, evidence, `zdash check` — sizes base 1024 with IEC units
  ("1.5 GiB", what zpool means by "1.5G"), latency in ms, percentages with one decimal,
  durations in words ("3 min 12 s");
- columns (size, mbps, ops, ms, pct, duration, ...): the dashboard's tables and headers, as
  compact as zpool's own columns ("1.50G", "3m12s").

Times come from the snapshot (never now(): a replay shows the recording's clock).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

# --- prose ---------------------------------------------------------------------------------

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


def fmt_wait(ns: float | None) -> str:
    """A latency bucket's bound as zpool -w labels it (whole ns/µs/ms/s, base 1000): "262 µs",
    "67 ms", "1 s". Histogram buckets are powers of two: finer digits would be invented."""
    if ns is None:
        return "no I/O"
    value, unit = float(ns), 0
    units = ("ns", "µs", "ms", "s")
    while value >= 1000 and unit < len(units) - 1:
        value /= 1000
        unit += 1
    return f"{int(value)} {units[unit]}"


def fmt_pct(pct: float | None) -> str:
    return "unknown" if pct is None else f"{pct:.1f} %"


def fill_figure(pct: float, digits: int = 1) -> float:
    """How full a pool or vdev is, as shown: rounded *down* to `digits` decimals, as zpool's own
    CAP is (floor(alloc x 100 / size)). One rule for every place that shows it (the finding, the
    pager line, the header, perfdata, the tables), so they show the same figure to the precision
    each shows, and a pool at 89.96 % (a warning) never reads "90.0 %" (critical)."""
    q: float = 10.0**digits
    return math.floor(pct * q + 1e-9) / q  # + 1e-9: 85.1 is 85.0999...; still 85.1


def fmt_fill(pct: float | None) -> str:
    """A fill in prose: "85.1 %"."""
    return "unknown" if pct is None else f"{fill_figure(pct):.1f} %"


def fmt_duration(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    s = round(max(seconds, 0))
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


def fmt_time(t: float | None) -> str:
    """A moment in prose, in UTC so a finding reads the same on every machine."""
    if t is None:
        return "at an unknown time"
    return time.strftime("on %Y-%m-%d at %H:%M UTC", time.gmtime(t))


def fmt_list(items: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


# --- columns -------------------------------------------------------------------------------

_COLUMN_UNITS = "KMGTPE"
MIB = 1 << 20


def size(n: float | None) -> str:
    """Base 1024 like zpool: 1.50G, 512M, 980K."""
    if n is None:
        return "-"
    if n < 1024:
        return f"{n:.0f}B"
    for i, unit in enumerate(_COLUMN_UNITS):
        v = n / 1024 ** (i + 1)
        if v < 1024 or unit == _COLUMN_UNITS[-1]:
            return f"{v:.2f}{unit}" if v < 10 else f"{v:.1f}{unit}" if v < 100 else f"{v:.0f}{unit}"
    return str(n)


def mbps(bytes_per_s: float | None) -> str:
    """MB/s in MiB like zpool iostat and sysstat; blank-ish when there is no measurement."""
    if bytes_per_s is None:
        return "-"
    v = bytes_per_s / MIB
    if v == 0:
        return "0"
    return f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:.0f}"


def ops(n: float | None) -> str:
    if n is None:
        return "-"
    return f"{n:.0f}" if n < 10_000 else f"{n / 1000:.0f}k"


def ms(ns: float | None) -> str:
    """Latency from ns: two decimals below 1 ms, one below 10, whole ms above, s past 1000."""
    if ns is None:
        return "-"
    v = ns / 1e6
    if v < 1:
        return f"{v:.2f}"
    if v < 10:
        return f"{v:.1f}"
    if v < 1000:
        return f"{v:.0f}"
    return f"{v / 1000:.1f}s"


def queue(n: float | None) -> str:
    """Requests in flight on average (iostat -x aqu-sz): two decimals below 1, one below 10."""
    if n is None:
        return "-"
    return f"{n:.2f}" if n < 1 else f"{n:.1f}" if n < 10 else f"{n:.0f}"


def pct(v: float | None, digits: int = 0) -> str:
    return "-" if v is None else f"{v:.{digits}f}%"


def fill(v: float | None, digits: int = 0) -> str:
    """A fill in a column: "85%", rounded down like every fill figure (fill_figure)."""
    return "-" if v is None else f"{fill_figure(v, digits):.{digits}f}%"


def duration(s: float | None) -> str:
    """ETA / age: 45s, 3m12s, 1h02m, 2d03h."""
    if s is None or s < 0:
        return "-"
    s = round(s)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def clock(t: float | None) -> str:
    """HH:MM:SS in the viewer's time zone (tests pin TZ=UTC)."""
    return "--:--:--" if t is None else time.strftime("%H:%M:%S", time.localtime(t))


def stamp(t: float | None) -> str:
    """Date and time with the zone, for the status bar and the finished-scan line."""
    return "-" if t is None else time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(t))


def middle(text: str, width: int) -> str:
    """Shorten long device paths in the middle: the by-id prefix and the serial both matter."""
    if len(text) <= width:
        return text
    if width <= 1:
        return text[:width]
    head = (width - 1) // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def shorten(name: str, width: int) -> str:
    """Device names to a column: paths keep their end (the file, the by-id serial and the
    partition are there), other names lose their middle."""
    if len(name) <= width or width <= 1:
        return name[:width] if width <= 1 else name
    return "…" + name[len(name) - width + 1 :] if "/" in name else middle(name, width)


def bar_cells(frac: float, width: int) -> tuple[str, str]:
    """A bar as (filled, empty) strings with eighth-block precision; frac is clamped to 0..1."""
    frac = min(max(frac, 0.0), 1.0)
    eighths = round(frac * width * 8)
    full, rest = divmod(eighths, 8)
    filled = "█" * full + ("" if rest == 0 or full >= width else " ▏▎▍▌▋▊▉"[rest])
    return filled, "░" * (width - len(filled))
