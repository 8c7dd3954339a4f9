"""The `scan:` (and 2.2+ error-scrub ` scrub:`) blocks of text `zpool status`, 0.8 to 2.4.

One block = its first line (the text after the label) plus its TAB-indented continuation
lines. The formats and their eras are in §3.3 of docs/zfs-output-reference.md; the line
builders are `print_scan_scrub_resilver_status()`, `print_rebuild_status_impl()` and
`print_err_scrub_status()` in cmd/zpool/zpool_main.c. Sizes here are always human
(`-p` does not reach the scan lines, §0), so byte counts carry 3 significant digits.
"""

from __future__ import annotations

import re
from typing import TypedDict

from zdash.model import Scan
from zdash.parse import ParseError
from zdash.parse.units import parse_ctime, parse_dhms, parse_size

_N = r"[0-9]{1,19}"  # bounded: int() of a 5000-digit run would raise ValueError
_DUR = rf"((?:{_N} days? )?{_N}:[0-9]{{2}}:[0-9]{{2}}|{_N}h{_N}m)"
_PCT = r"([0-9]{1,9}(?:\.[0-9]{1,9})?)"
# "thorough " is master-only wording (§3.3); it is still a scrub.
_HEAD = [
    ("progress", re.compile(r"(?:thorough )?(scrub|resilver) in progress since (.+)")),
    ("paused", re.compile(r"(?:thorough )?(scrub) paused since (.+)")),
    # "on <date>" absent: a ZED mail as pasted (corpus 174); the scan is known, its time not.
    (
        "finished",
        re.compile(rf"(?:thorough )?(scrub) repaired (\S+) in {_DUR} with ({_N}) errors(?: on (.+))?"),
    ),
    ("finished", re.compile(rf"(resilver)ed (\S+) in {_DUR} with ({_N}) errors(?: on (.+))?")),
    ("canceled", re.compile(r"(?:thorough )?(scrub|resilver) canceled on (.+)")),
    # Sequential rebuild (2.0+), one block per top-level vdev: the vdev name is in brackets.
    ("rb_progress", re.compile(r"resilver \((.+)\) in progress since (.+)")),
    ("rb_finished", re.compile(rf"resilvered \((.+)\) (\S+) in {_DUR} with ({_N}) errors on (.+)")),
    ("rb_canceled", re.compile(r"resilver \((.+)\) canceled on (.+)")),
    # Error scrub (2.2+, label " scrub:"): counts error *blocks*, not bytes.
    ("es_finished", re.compile(rf"scrubbed {_N} error blocks in {_DUR} on (.+)")),
    ("es_canceled", re.compile(r"error scrub canceled on (.+)")),
    ("es_progress", re.compile(r"error scrub in progress since (.+)")),
    ("es_paused", re.compile(r"error scrub paused since (.+)")),
    # Before the scan: label (Solaris 10, ZFS on Linux 0.6.0-0.6.2, FreeBSD 8): one line under
    # " scrub:", duration instead of start date, e.g. "resilver in progress for 0h0m, 22.60%
    # done, 0h1m to go", "scrub completed after 0h5m with 0 errors on <date>".
    (
        "old_progress",
        re.compile(rf"(scrub|resilver) in progress(?: for {_DUR})?, {_PCT}% done(?:, (.+) to go)?"),
    ),
    (
        "old_finished",
        re.compile(rf"(scrub|resilver) completed(?: after {_DUR})? with ({_N}) errors? on (.+)"),
    ),
    ("old_stopped", re.compile(rf"(scrub|resilver) stopped(?: after {_DUR})? with ({_N}) errors? on (.+)")),
]
# 0.8-2.1: "S scanned at R/s, I issued at R/s, T total"; 2.2+: "S / T scanned at R/s, I / T'
# issued at R/s"; rates vanish when paused or zero; the 2.0-2.1 rebuild line lacks "at"
# before the issue rate. Pattern from §3.3, tested there against every era.
_SCANNED = re.compile(
    r"(\S+) (?:/ (\S+) )?scanned(?: at \S+/s)?, (\S+) (?:/ (\S+) )?issued"
    r"(?: (?:at )?\S+/s)?(?:, (\S+) total)?"
)
_SCANNED_PRE08 = re.compile(r"(\S+) scanned out of (\S+) at \S+/s(?:, (.+) to go)?")
_DONE = re.compile(
    rf"(\S+) (?:repaired|resilvered), {_PCT}% done"
    r"(?:, (.+) to go|, no estimated completion time)?"
)
_ES_DONE = re.compile(rf"{_PCT}% done, issued I/O for {_N} error blocks")
_STARTED = re.compile(r"(?:error )?scrub started on (.+)")


class _Detail(TypedDict, total=False):
    """What a line of a block tells: keyword arguments of Scan, the optional ones."""

    start_time: float | None
    end_time: float | None
    pause_time: float | None
    to_examine: int | None
    examined: int | None
    issued: int | None
    skipped: int | None
    processed: int | None
    errors: int | None
    pct_done: float | None
    zpool_eta_s: float | None
    vdev: str | None


class _Head(TypedDict):
    function: str
    state: str


class _ScanFields(_Head, _Detail):
    """All of Scan's keyword arguments: the first line gives function and state."""


def says_none(lines: list[str]) -> bool:
    """0.8's (and older) "none requested": no scan ever, as 2.0+ says by printing no scan: line."""
    return bool(lines) and lines[0].strip() == "none requested"


def parse_scan_block(lines: list[str]) -> Scan | None:
    """A Scan from one block's lines, None for "none requested" or an unknown first line."""
    if not lines:
        return None
    head = lines[0].strip()
    for kind, pattern in _HEAD:  # noqa: B007 - the kind that matched is used below
        m = pattern.fullmatch(head)
        if m is not None:
            break
    else:
        return None  # "none requested" (0.8) or a wording we do not know: no scan known
    # A token we cannot read (a localized date, a mangled size) costs that line's facts,
    # not the whole pool: the tree and health matter more than one scan number.
    try:
        fields = _head_fields(kind, m.groups())
    except ParseError:
        return None
    for line in lines[1:]:
        try:
            fields = {**fields, **_detail_fields(line.strip())}
        except ParseError:
            continue
    return Scan(**fields)


def _when(text: str) -> int | None:
    try:
        return parse_ctime(text)
    except ParseError:  # a localized or mangled date: the scan stays, its time is unknown
        return None


def _head_fields(kind: str, g: tuple[str, ...]) -> _ScanFields:
    if kind == "progress":
        return {"function": g[0], "state": "scanning", "start_time": _when(g[1])}
    if kind == "paused":
        return {"function": g[0], "state": "paused", "pause_time": _when(g[1])}
    if kind == "canceled":
        return {"function": g[0], "state": "canceled", "end_time": _when(g[1])}
    if kind == "finished":
        return _finished(g[0], None, g[1], g[2], g[3], g[4])
    if kind == "rb_progress":
        return {"function": "rebuild", "vdev": g[0], "state": "scanning", "start_time": _when(g[1])}
    if kind == "rb_finished":
        return _finished("rebuild", g[0], g[1], g[2], g[3], g[4])
    if kind == "rb_canceled":
        return {"function": "rebuild", "vdev": g[0], "state": "canceled", "end_time": _when(g[1])}
    if kind == "old_progress":
        eta = _dhms(g[3]) if g[3] else None
        return {"function": g[0], "state": "scanning", "pct_done": float(g[2]), "zpool_eta_s": eta}
    if kind in ("old_finished", "old_stopped"):
        end = _when(g[3])
        took = _dhms(g[1]) if g[1] else None
        return {
            "function": g[0],
            "state": "finished" if kind == "old_finished" else "canceled",
            "errors": int(g[2]),
            "end_time": end,
            "start_time": None if end is None or took is None else end - took,
        }
    if kind == "es_finished":
        end = _when(g[1])
        start = None if end is None else end - parse_dhms(g[0])
        return {"function": "errorscrub", "state": "finished", "start_time": start, "end_time": end}
    when = _when(g[0])
    if kind == "es_canceled":
        return {"function": "errorscrub", "state": "canceled", "end_time": when}
    if kind == "es_progress":
        return {"function": "errorscrub", "state": "scanning", "start_time": when}
    if kind == "es_paused":
        return {"function": "errorscrub", "state": "paused", "pause_time": when}
    raise KeyError(kind)  # every kind of _HEAD is handled above


def _dhms(text: str) -> float | None:
    try:
        return parse_dhms(text)
    except ParseError:
        return None


def _finished(
    function: str, vdev: str | None, processed: str, took: str, errors: str, ended: str | None
) -> _ScanFields:
    # The duration printed is exactly end - start (secs_to_dhms), so the start is exact too.
    end = _when(ended) if ended is not None else None
    return {
        "function": function,
        "vdev": vdev,
        "state": "finished",
        "processed": parse_size(processed),
        "errors": int(errors),
        "end_time": end,
        "start_time": None if end is None else end - parse_dhms(took),
    }


def _detail_fields(line: str) -> _Detail:
    m = _SCANNED.fullmatch(line)
    if m is not None:
        scanned, total_s, issued, total_i, total_old = m.groups()
        to_examine = parse_size(total_s or total_old) if (total_s or total_old) else None
        fields: _Detail = {
            "examined": parse_size(scanned),
            "issued": parse_size(issued),
            "to_examine": to_examine,
        }
        issue_total = parse_size(total_i) if total_i else None
        if total_s and to_examine is not None and issue_total is not None:
            fields["skipped"] = max(
                0, to_examine - issue_total
            )  # 2.2+: total_i = to_examine - skipped (§3.3)
        return fields
    m = _DONE.fullmatch(line)
    if m is not None:
        fields = {"processed": parse_size(m.group(1)), "pct_done": float(m.group(2))}
        if m.group(3):  # pre-0.8 put the ETA on the line above; keep it
            fields["zpool_eta_s"] = parse_dhms(m.group(3))
        return fields
    m = _STARTED.fullmatch(line)
    if m is not None:
        return {"start_time": _when(m.group(1))}
    m = _ES_DONE.fullmatch(line)
    if m is not None:
        return {"pct_done": float(m.group(1))}
    m = _SCANNED_PRE08.fullmatch(line)
    if m is not None:
        eta = parse_dhms(m.group(3)) if m.group(3) else None
        return {"examined": parse_size(m.group(1)), "to_examine": parse_size(m.group(2)), "zpool_eta_s": eta}
    return {}  # "scan warning", rates we do not keep, or wording from a newer zpool
