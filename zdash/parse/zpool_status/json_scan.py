"""JSON value readers and the scan records of `zpool status -j` (2.3+).

Values come in two dialects (§4.2): --json-int gives integers (but leaves "-" and non-digit
strings as strings), plain -j gives everything as strings, human-formatted ("160M", "1.25K")
and timestamps as dates ("Sun Nov 22 03:47:53 UTC 2026") or "-" for zero. Each reader
accepts both and raises ParseError on anything else (objects, lists, booleans, floats).
"""

from __future__ import annotations

from typing import TypeAlias

from zdash.model import Scan
from zdash.parse import ParseError
from zdash.parse.units import parse_count, parse_ctime

# An epoch beyond 2**40 s (year ~36800) or a byte count beyond 2**80 is damage, and keeping
# them bounded means every float() below is safe from OverflowError.
_MAX_EPOCH, _MAX_BYTES = 2**40, 2**80

# A JSON object once checked with isinstance(value, dict): its keys are strings, its values
# anything JSON holds, each read through string() / count() / epoch() below.
JsonObject: TypeAlias = "dict[str, object]"

_SCAN_STATE = {
    "SCANNING": "scanning",
    "FINISHED": "finished",
    "CANCELED": "canceled",
    "ERRORSCRUBBING": "scanning",
}
_REBUILD_STATE = {"ACTIVE": "scanning", "COMPLETE": "finished", "CANCELED": "canceled"}


def string(value: object, what: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # --json-int turns digit strings such as guids into integers
    raise ParseError(f"zpool status -j: {what} is not a string")


def count(value: object, what: str) -> int | None:
    """A counter or byte size, exact or nicenum; None for missing or '-'."""
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_count(value)
        if value is None:
            return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _MAX_BYTES:
        return value
    raise ParseError(f"zpool status -j: {what} is not a count: {str(value)[:40]!r}")


def epoch(value: object, what: str) -> float | None:
    """Epoch seconds; 0 and "-" mean "never" (zpool prints '-' for a zero time)."""
    if isinstance(value, str) and not value.strip().isdecimal():
        try:
            when = parse_ctime(value) if value.strip() != "-" else None
        except ParseError:
            return None  # a locale-formatted date we cannot read: unknown, not fatal
        return None if when is None else float(when)
    seconds = count(value, what)
    return float(seconds) if seconds and seconds < _MAX_EPOCH else None


def _pct(done: int | None, total: int | None) -> float | None:
    if done is None or total is None or total <= 0:
        return None
    return done * 100 / total  # both < 2**80: no OverflowError


def parse_scans(stats: object, pool: str) -> tuple[Scan, ...]:
    """The scan, error scrub and per-vdev rebuild records of one pool's scan_stats."""
    if stats is None:
        return ()
    if not isinstance(stats, dict):
        raise ParseError(f"pool {pool!r}: scan_stats is not an object")
    scans: list[Scan] = []
    function, state = string(stats.get("function"), "function"), string(stats.get("state"), "state")
    if function not in (None, "NONE") and state not in (None, "NONE"):
        scans.append(_scan(stats, function, state))
    if string(stats.get("err_scrub_func"), "err_scrub_func") == "ERRORSCRUB":
        scans.append(_error_scrub(stats))
    rebuilds = stats.get("rebuild_stats") or {}
    if not isinstance(rebuilds, dict):
        raise ParseError(f"pool {pool!r}: rebuild_stats is not an object")
    for vdev, rebuild in rebuilds.items():
        if not isinstance(rebuild, dict):
            raise ParseError(f"pool {pool!r}: rebuild_stats of {vdev!r} is not an object")
        scan = _rebuild(vdev, rebuild)
        if scan is not None:
            scans.append(scan)
    return tuple(scans)


def _scan(stats: JsonObject, function: str, state: str) -> Scan:
    paused = epoch(stats.get("scrub_pause"), "scrub_pause")
    name = "paused" if state == "SCANNING" and paused else _SCAN_STATE.get(state, state.lower())
    to_examine, skipped = count(stats.get("to_examine"), "to_examine"), count(stats.get("skipped"), "skipped")
    issued = count(stats.get("issued"), "issued")
    # zpool's own "% done": issued / (to_examine - skipped), printed only while running (§3.3)
    running = name in ("scanning", "paused")
    total_i = None if to_examine is None else to_examine - (skipped or 0)
    return Scan(
        function=function.lower(),
        state=name,
        pause_time=paused if name == "paused" else None,
        start_time=epoch(stats.get("start_time"), "start_time"),
        end_time=epoch(stats.get("end_time"), "end_time"),
        to_examine=to_examine,
        examined=count(stats.get("examined"), "examined"),
        issued=issued,
        skipped=skipped,
        processed=count(stats.get("processed"), "processed"),
        errors=count(stats.get("errors"), "errors"),
        pct_done=_pct(issued, total_i) if running else None,
    )


def _error_scrub(stats: JsonObject) -> Scan:
    state = string(stats.get("err_scrub_state"), "err_scrub_state") or "NONE"
    paused = epoch(stats.get("err_scrub_pause"), "err_scrub_pause")
    name = "paused" if state == "ERRORSCRUBBING" and paused else _SCAN_STATE.get(state, state.lower())
    examined = count(stats.get("err_scrub_examined"), "err_scrub_examined")  # blocks, not bytes
    left = count(stats.get("err_scrub_to_examine"), "err_scrub_to_examine")
    total = None if examined is None or left is None else examined + left  # print_err_scrub_status()
    return Scan(
        function="errorscrub",
        state=name,
        pause_time=paused if name == "paused" else None,
        start_time=epoch(stats.get("err_scrub_start_time"), "err_scrub_start_time"),
        end_time=epoch(stats.get("err_scrub_end_time"), "err_scrub_end_time"),
        pct_done=_pct(examined, total) if name in ("scanning", "paused") else None,
    )


def _rebuild(vdev: str, stats: JsonObject) -> Scan | None:
    state = string(stats.get("state"), "rebuild state")
    if state in (None, "NONE"):
        return None
    name = _REBUILD_STATE.get(state, state.lower())
    scanned, to_scan = count(stats.get("scanned"), "scanned"), count(stats.get("to_scan"), "to_scan")
    # print_rebuild_status_impl(): MIN(scanned * 100 / (est + 1), 100)
    pct = None if to_scan is None or scanned is None else min(scanned * 100 / (to_scan + 1), 100.0)
    return Scan(
        function="rebuild",
        state=name,
        vdev=vdev,
        start_time=epoch(stats.get("start_time"), "start_time"),
        end_time=epoch(stats.get("end_time"), "end_time"),
        to_examine=to_scan,
        examined=scanned,
        issued=count(stats.get("issued"), "issued"),
        processed=count(stats.get("rebuilt"), "rebuilt"),
        errors=count(stats.get("errors"), "errors"),
        pct_done=pct if name == "scanning" else None,
    )
