"""How often the live source runs each command, and how old a command's last good output may be
before it is stale (not what zdash sees now). One home for the cadence: the source schedules by
it, the fold (zdash.builder) ages each source by it, the exporter's staleness metrics read it.
"""

from __future__ import annotations

# Sources every live session and recording has: missing after this many ticks is an error.
EXPECTED = ("status", "list", "iostat")
# How long a slow command's last good result is shown before it counts as stale, in ticks.
STALE_AFTER = {
    "iostat": 3,
    "diskstats": 3,
    "status": 15,
    "list": 15,
    "devices": 120,
    "datasets": 240,
    "ashift": 240,
    "history": 10**9,  # what `zpool add` did stays true; read once (a paste's transcript)
    "version": 10**9,
    "events": 10**9,  # a stream: quiet when nothing happens, which is the normal case
}
# The live source's slowest schedules (sources/live.py): on a quiet pool `zpool status` runs every
# QUIET_EVERY_S and `zpool list` every RARE_EVERY_S (capacity comes from iostat between), so data
# that old is the schedule working, not a source zdash cannot see. Each is stale only half a
# period later (or after its STALE_AFTER ticks, when that is longer); a failed or timed-out
# command is an error at once, whatever the age.
QUIET_EVERY_S = 30.0
RARE_EVERY_S = 60.0
# datasets, ashift and devices run every RARE_EVERY_S too, whatever the interval: at a short
# --interval (0.2 s) their 120-240 intervals were shorter than their own period, and a fleet
# said "devices: no fresh data for 24 s" of every healthy host.
STALE_MIN_S = {
    "status": 1.5 * QUIET_EVERY_S,
    "list": 1.5 * RARE_EVERY_S,
    "datasets": 1.5 * RARE_EVERY_S,
    "ashift": 1.5 * RARE_EVERY_S,
    "devices": 1.5 * RARE_EVERY_S,
}


def stale_limit(key: str, interval: float) -> float:
    """Seconds after which a source's last good data is stale (not what zdash sees now)."""
    kind = key.split(":", 1)[0]
    return max(STALE_AFTER.get(kind, 60) * interval, STALE_MIN_S.get(kind, 0.0))
