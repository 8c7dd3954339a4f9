"""Visibility: a command that fails, times out or stalls is a verdict, never silence.

What zdash shows comes from `zpool status` (the tree and health), `zpool list` (space) and the
`zpool iostat` stream (rates). When one of them fails or its data grows old, everything built
on it is a memory, not a measurement: zdash must say so instead of repeating the last good
picture as if it were now. UNKNOWN when zdash cannot see (a timeout, a denied or missing
command, a stalled stream); CRITICAL when the failure is the pool's own (zpool answers with an
I/O error, or says the pool's I/O is suspended): a pool that cannot answer for its own state is
failing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from zdash.checks import tracker
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_duration
from zdash.model import Snapshot, SourceState

ID = "visibility"

# What each source feeds; a failure of these hides the pools' state.
WATCHED = {
    "status": "pool health, the vdev tree and errors",
    "list": "capacity and per-vdev space",
    "iostat": "throughput, latency and the slow-disk verdict",
}
# A source that only lags (no error: its last good data is a few seconds old) is a verdict from
# this age on. The dashboard says STALE as soon as the data is old (three intervals); UNKNOWN
# before this would flicker on every hiccup of a busy host's `zpool iostat` (seen in the lab:
# a 4 s gap in the stream under load, then reports again, on a healthy pool).
STALL_GRACE_S = 10.0
# Words in zpool's own error output that mean the pool itself is failing, not zdash's access.
POOL_FAILING = ("i/o error", "suspended", "pool i/o is currently suspended", "no valid replicas")
DENIED = ("permission denied", "operation not permitted", "insufficient privileges")


def _own_failure(message: str) -> bool:
    text = message.lower()
    return any(w in text for w in POOL_FAILING)


def hint(message: str) -> str:
    """What to do about a source's failure, from its message (a leading space, or empty); the
    dashboard says the same where the pools would be."""
    text = message.lower()
    if any(w in text for w in DENIED):
        return (
            " zpool needs access to /dev/zfs: run zdash as root (or with sudo), or delegate with "
            "`zfs allow` / a sudo rule for zdash where your distribution does not let users read pool state."
        )
    if "not found" in text:
        return " Is ZFS installed, and is `zpool` on the PATH?"
    if "timed out" in text or "no fresh data" in text or "no data yet" in text:
        return (
            " A zpool command that hangs often means a pool whose I/O is stuck (a dead disk "
            "that does not time out, a suspended pool); look at `dmesg` and `zpool events`."
        )
    return ""


class Tracker(tracker.Tracker):
    def findings(self, snap: Snapshot) -> list[Finding]:
        bad = sorted(
            (
                s
                for s in snap.sources
                if s.key in WATCHED and not s.ok and not (s.stalled and (s.age_s or 0.0) < STALL_GRACE_S)
            ),
            key=lambda s: list(WATCHED).index(s.key),
        )
        if not bad:
            return []
        # One blindness, one finding: the most fundamental failure leads (a failing status
        # usually stalls the rest too); the others are listed with it.
        pools = [p.name for p in snap.pools]
        f = _finding(bad[0], pools)
        also = tuple((f"Also stale: {s.key}", s.message or "no fresh data") for s in bad[1:])
        return [dataclasses.replace(f, evidence=f.evidence + also)]


def _finding(source: SourceState, pools: list[str]) -> Finding:
    message = source.message or f"{source.key}: no fresh data"
    own = _own_failure(message)
    severity = Severity.CRITICAL if own else Severity.UNKNOWN
    age = f"last good data {fmt_duration(source.age_s)} old" if source.age_s is not None else "no data yet"
    where = ", ".join(pools) if pools else "the pools"
    if own:
        title = f"{where}: zpool cannot read the pool: {message}"
        why = (
            "zpool itself reports the pool failing (an I/O error or suspended I/O): the pool "
            "cannot answer for its own state, so what is on screen is the last state zdash could "
            "read, not the present. Look at `zpool status -x`, `dmesg` and `zpool events -v`; a "
            "suspended pool resumes with `zpool clear` once its devices are back."
        )
    else:
        title = f"cannot see {where}: {message}"
        why = (
            f"zdash could not get {WATCHED[source.key]} ({message}). What is shown is the last good "
            f"data ({age}), not the present, so no verdict built on it can be trusted as current "
            "and zdash will not call the pool OK." + hint(message)
        )
    return Finding(
        ID,
        severity,
        pools[0] if len(pools) == 1 else None,
        where,
        "pool",
        title=title,
        why=why,
        evidence=(("Source", source.key), ("Error", message), ("Data age", age)),
        topic=source.key,
    )


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return tracker.fold(Tracker, history, cfg)
