"""Plan builders: (Snapshot, Request, HostProbe) → ActionPlan, one per catalog action.

The argv is always formed, even when a check fails, so the admin sees exactly what was asked
and why it will not run. No builder ever produces `zpool add` (the wrong-verb disaster: a disk
added as a new top-level vdev instead of attached as a mirror cannot be undone on raidz pools)
nor a `-f`: a check that zpool would override with -f is a reason to stop, not to force.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from zdash.actions import disks, rules
from zdash.actions import preflight as pf
from zdash.actions.estimate import scrub_time
from zdash.actions.plan import ACTIONS, ActionName, ActionPlan, Check, Request, argv_for, fingerprint
from zdash.actions.probe import HostProbe
from zdash.actions.promote import promote_checks, promote_via
from zdash.model import Pool, Snapshot

# A plan builder: the snapshot, the pool named by the request, the request, the probe for the
# new disk, and the checks every plan starts with (fresh state, pool usable).
Builder = Callable[[Snapshot, Pool, Request, HostProbe, tuple[Check, ...]], ActionPlan]


class UnknownAction(ValueError):
    pass


def build_plan(snap: Snapshot, request: Request, probe: HostProbe | None = None) -> ActionPlan:
    """Pure given the probe: the UI calls it (in a thread: the probe runs blkid) for the confirm
    screen; the executor calls it again on fresh state right before running."""
    if request.action not in ACTIONS:
        raise UnknownAction(f"unknown action {request.action!r} (one of {', '.join(ACTIONS)})")
    pool = snap.pool(request.pool)
    base = [pf.fresh_status(snap)]
    if pool is None:
        names = ", ".join(p.name for p in snap.pools) or "none"
        base.append(Check("pool found", False, f"no imported pool {request.pool!r} (pools: {names})"))
        return ActionPlan(
            request,
            argv_for(request),
            f"{request.action} in {request.pool}",
            "",
            "",
            True,
            None,
            tuple(base),
            fingerprint(None),
        )
    base.append(pf.pool_usable(pool, request.action))
    return BUILDERS[request.action](snap, pool, request, probe or HostProbe(), tuple(base))


def _clear(snap: Snapshot, pool: Pool, r: Request, probe: HostProbe, base: tuple[Check, ...]) -> ActionPlan:
    checks = list(base)
    place = None
    if r.device:
        place, r, found = disks.device(pool, r)
        checks.append(found)
    checks.append(rules.has_something_to_clear(pool, place))
    summary = (
        f"Resets the error counters of {r.device or pool.name} and retries faulted devices; "
        "resumes a suspended pool if its devices are back. The list of files with permanent "
        "errors is cleared only by a scrub."
    )
    return ActionPlan(
        r,
        argv_for(r),
        f"Clear errors in {pool.name}" + (f" on {r.device}" if r.device else ""),
        summary,
        "seconds",
        False,
        None,
        tuple(checks),
        fingerprint(pool),
    )


def _scrub(snap: Snapshot, pool: Pool, r: Request, probe: HostProbe, base: tuple[Check, ...]) -> ActionPlan:
    r = replace(r, device=None, new_device=None)  # a scrub names no disk
    check, alternatives = rules.scrub_state(pool, r.action)
    # action -> (title verb, summary, duration, disruptive)
    texts: dict[ActionName, tuple[str, str, str, bool]] = {
        "scrub": (
            "Scrub",
            f"Every block in {pool.name} is read and checked against its checksum; "
            "bad copies are repaired from good ones. The pool stays online, with extra "
            "read load.",
            scrub_time(pool),
            False,
        ),
        "scrub-pause": (
            "Pause the scrub of",
            f"The scrub stops where it is; `zpool scrub {pool.name}` resumes it later, even after a reboot.",
            "seconds",
            False,
        ),
        "scrub-stop": (
            "Stop the scrub of",
            "The scrub is canceled and its progress lost; the next scrub starts from the beginning.",
            "seconds",
            True,
        ),
    }
    verb, summary, duration, disruptive = texts[r.action]
    return ActionPlan(
        r,
        argv_for(r),
        f"{verb} {pool.name}",
        summary,
        duration,
        disruptive,
        None,
        (*base, check),
        fingerprint(pool),
        alternatives=alternatives,
    )


def _promote(snap: Snapshot, pool: Pool, r: Request, probe: HostProbe, base: tuple[Check, ...]) -> ActionPlan:
    checks, summary = promote_checks(snap, pool, r.device)
    return ActionPlan(
        r,
        argv_for(r),
        f"Promote {r.device}",
        summary,
        "seconds (no data is copied)",
        True,
        None,
        (*base, *checks),
        fingerprint(pool),
        via="cli" if r.host else promote_via(),  # this host's pyzfs cannot reach another's
    )


BUILDERS: dict[ActionName, Builder] = {
    "attach": disks.attach,
    "detach": disks.detach,
    "replace": disks.replace,
    "offline": disks.offline,
    "online": disks.online,
    "clear": _clear,
    "scrub": _scrub,
    "scrub-pause": _scrub,
    "scrub-stop": _scrub,
    "promote": _promote,
}
