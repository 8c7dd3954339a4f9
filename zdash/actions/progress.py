"""Live progress of an action that keeps going after its command returns (attach and replace
resilver, a scrub scans), read from the snapshots the dashboard already polls. Pure: the UI
calls progress(outcome.plan, snapshot, outcome.started) on every new snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass

from zdash.actions.plan import ActionPlan
from zdash.actions.tree import healthy, locate, running_scan
from zdash.model import Pool, Snapshot


@dataclass(frozen=True, slots=True)
class Progress:
    done: bool
    text: str
    pct: float | None = None


def progress(plan: ActionPlan, snap: Snapshot, since: float | None = None) -> Progress:
    pool = snap.pool(plan.pool)
    a = plan.action
    if a == "promote":
        d = next((d for d in snap.datasets if d.name == plan.request.device), None)
        return Progress(
            d is not None and not d.origin, "promoted" if d and not d.origin else "waiting for zfs list"
        )
    if pool is None:
        return Progress(False, f"{plan.pool} not in this snapshot")
    if a in ("attach", "replace", "online"):
        return _resilver(plan, pool)
    if a == "scrub":
        return _scrub(pool, since)
    scrub = running_scan(pool, "scrub", "errorscrub")
    if a == "scrub-pause":
        return Progress(scrub is None or scrub.state == "paused", "scrub paused" if scrub else "no scrub")
    if a == "scrub-stop":
        return Progress(scrub is None, "scrub stopped" if scrub is None else "scrub still running")
    place = locate(pool, plan.request.device) if plan.request.device else None
    if a == "detach":
        return Progress(place is None, "detached" if place is None else "still in the pool")
    if a == "offline":
        return Progress(place is not None and place.leaf.state == "OFFLINE", "offline")
    return Progress(True, "done")  # clear: the command's exit is the result


def _resilver(plan: ActionPlan, pool: Pool) -> Progress:
    scan = running_scan(pool, "resilver", "rebuild")
    if scan is not None:
        pct = scan.pct_done
        return Progress(False, f"{scan.function} {pct:.1f}% done" if pct is not None else scan.function, pct)
    name = plan.request.new_device or plan.request.device
    place = locate(pool, name) if name else None
    if place is None:
        return Progress(False, f"{name} not in {pool.name} yet")
    if place.parent.kind == "replacing" or not healthy(place.leaf):
        return Progress(False, f"{place.leaf.label} is {place.leaf.state}, in {place.parent.name}")
    return Progress(True, f"{place.leaf.label} is ONLINE and complete; {pool.name} is {pool.state}", 100.0)


def _scrub(pool: Pool, since: float | None) -> Progress:
    scan = running_scan(pool, "scrub", "errorscrub")
    if scan is not None:
        pct = scan.pct_done
        return Progress(
            False, f"scrub {scan.state}, {pct:.1f}% done" if pct is not None else "scrub starting", pct
        )
    last = pool.scan
    finished = (
        last is not None
        and last.function == "scrub"
        and last.state == "finished"
        and (since is None or (last.end_time or 0) >= since - 1)
    )
    return Progress(
        finished, "scrub finished" if finished else "no scrub running", 100.0 if finished else None
    )
