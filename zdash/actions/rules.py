"""Pre-flight checks about the pool's own tree and scans: which member may go, which vdev may
grow, which scrub command makes sense now. Pure functions of the snapshot.
"""

from __future__ import annotations

from zdash.actions.plan import ACCEPT, WARN, ActionName, Check
from zdash.actions.tree import Place, healthy, running_scan
from zdash.model import AUX_CLASSES, Pool
from zdash.redundancy import margin, resilver_running


def leaf_found(pool: Pool, name: str, place: Place | None) -> Check:
    if place is None:
        return Check(
            "device in pool",
            False,
            f"no single device {name!r} in {pool.name} (give the path zpool status -P shows, or the GUID)",
        )
    where = "a single-disk vdev" if place.single else f"in {place.parent.name}"
    return Check("device in pool", True, f"{place.leaf.label} is {place.leaf.state}, {where}")


def keeps_a_copy(pool: Pool, place: Place, verb: str, accept_risk: bool = False) -> Check:
    """What taking `place.leaf` away leaves its vdev, by the one redundancy model
    (zdash.redundancy): never the last complete copy (FAIL: zpool would answer 'no valid
    replicas'); never silently the last *redundancy* (a 2-way mirror left on one side, a raidz1
    on exactly its data disks): that fails until the admin accepts the risk; else PASS with what
    is left."""
    name, top = place.leaf.label, place.top
    if place.single:
        return Check(
            "redundancy kept",
            False,
            f"{name} is a single-disk vdev: it is the only copy of its data, so it cannot be {verb}ed",
        )
    resilvering = resilver_running(pool)
    before = margin(top, resilvering=resilvering)
    after = margin(top, without=place.leaf, resilvering=resilvering)
    if after.left == before.left and before.left >= 0:
        return Check(
            "redundancy kept",
            True,
            f"{name} holds no complete copy now ({place.leaf.state}): {top.name} keeps what it has",
        )
    if after.left < 0:
        if top.kind.startswith(("raidz", "draid")):
            why = f"without it {top.name} would miss more members than its parity covers"
        else:
            why = f"it is the last healthy member of {top.name}: without it that vdev loses data"
        return Check("redundancy kept", False, f"{name}: {why}")
    if after.left == 0 and after.design > 0:
        runs_on = ", ".join(leaf.label for leaf in after.whole) or "its remaining members"
        return Check(
            "redundancy kept",
            False,
            f"without {name}, {top.name} has no redundancy left: it runs on {runs_on} alone and one "
            "more failure there loses data. Replace the disk instead (it stays in service until the "
            "new one is resilvered), or accept the risk explicitly",
            severity=ACCEPT,
            accepted=accept_risk,
        )
    return Check(
        "redundancy kept",
        True,
        f"without {name}, {top.name} can still lose {after.left} more disk{'s' if after.left > 1 else ''}",
    )


def not_resilver_source(pool: Pool, place: Place) -> Check:
    """zpool status does not say which member is incomplete until the resilver has written to
    it (a fresh attach shows both sides plain ONLINE), so while a resilver runs anywhere in the
    pool, every healthy member may be the one it reads from."""
    scan = running_scan(pool, "resilver", "rebuild")
    leaf = place.leaf
    if scan is None:
        return Check("not a resilver source", True, "no resilver is running")
    if "resilvering" in (leaf.aux or ""):
        return Check(
            "not a resilver source",
            True,
            f"{leaf.label} is the disk being resilvered; removing it cancels that resilver",
        )
    if not healthy(leaf):
        return Check("not a resilver source", True, f"{leaf.label} is {leaf.state}: nothing reads from it")
    pct = f" ({scan.pct_done:.0f}% done)" if scan.pct_done is not None else ""
    return Check(
        "not a resilver source",
        False,
        f"a {scan.function} is running in {pool.name}{pct} "
        f"and may be reading from {leaf.label}; wait for it: zpool wait -t resilver {pool.name}",
    )


def attachable(place: Place) -> Check:
    """Attach makes or widens a mirror. On raidz (2.3+) the same command starts an irreversible
    RAID-Z expansion, which is never what "add a mirror disk" meant, so it is not offered."""
    name, p = "attach target", place.parent
    if place.top.vclass in AUX_CLASSES:
        return Check(name, False, f"{place.leaf.label} is a {place.top.vclass} device: nothing to mirror")
    if place.single:
        return Check(name, True, f"{place.leaf.label} is a single-disk vdev: it becomes a 2-way mirror")
    if p.kind == "mirror":
        return Check(name, True, f"{p.name} grows to a {len(p.children) + 1}-way mirror")
    if p.kind.startswith(("raidz", "draid")):
        return Check(
            name,
            False,
            f"{p.name} is {p.kind}: attach there would start an irreversible "
            "RAID-Z expansion, not make a mirror; zdash does not offer it",
        )
    return Check(
        name,
        False,
        f"{place.leaf.label} is inside {p.name} ({p.kind}): wait until that "
        "finishes, then attach to the remaining disk",
    )


def detachable(place: Place) -> Check:
    p = place.parent
    if p.kind in ("mirror", "replacing", "spare"):
        return Check("detachable", True, f"{p.name} is a {p.kind} vdev")
    if place.single:
        why = "a single-disk vdev (that would be `zpool remove`, which zdash does not offer)"
    else:
        why = f"a member of {p.name} ({p.kind}): only mirror, replacing and spare members detach"
    return Check("detachable", False, f"{place.leaf.label} is {why}")


def not_being_replaced(place: Place) -> Check:
    if place.parent.kind == "replacing":
        return Check(
            "not being replaced",
            False,
            f"{place.leaf.label} is already in "
            f"{place.parent.name}: wait for that resilver, or detach the new disk to cancel it",
        )
    return Check("not being replaced", True, "no replacement in progress for it")


def state_is(place: Place, wanted: tuple[str, ...], verb: str) -> Check:
    leaf = place.leaf
    if leaf.state in wanted:
        return Check("device state", True, f"{leaf.label} is {leaf.state}")
    return Check("device state", False, f"{leaf.label} is {leaf.state}: nothing to {verb}")


def scrub_state(pool: Pool, action: ActionName) -> tuple[Check, tuple[ActionName, ...]]:
    """(the check, actions to offer instead). zpool refuses a scrub during a resilver and a
    second scrub during a scrub; pause and stop need one running."""
    scrub = running_scan(pool, "scrub", "errorscrub")
    resilver = running_scan(pool, "resilver", "rebuild")
    pct = f" at {scrub.pct_done:.1f}%" if scrub and scrub.pct_done is not None else ""
    name = "scrub state"
    if action == "scrub":
        if resilver is not None:
            return Check(
                name,
                False,
                f"a {resilver.function} is running in {pool.name}: a scrub cannot start until it finishes",
            ), ()
        if scrub is not None and scrub.state == "scanning":
            return Check(name, False, f"a scrub is already running{pct}: pause or stop it instead"), (
                "scrub-pause",
                "scrub-stop",
            )
        if scrub is not None:
            return Check(name, True, f"resumes the paused scrub{pct}"), ("scrub-stop",)
        return Check(name, True, "no scrub or resilver running"), ()
    if scrub is None:
        return Check(name, False, f"no scrub is running in {pool.name}"), ("scrub",)
    if action == "scrub-pause" and scrub.state == "paused":
        return Check(name, False, f"the scrub is already paused{pct}"), ("scrub", "scrub-stop")
    return Check(name, True, f"a scrub is {scrub.state}{pct}"), ()


def has_something_to_clear(pool: Pool, place: Place | None) -> Check:
    nodes = list(place.leaf.walk()) if place else list(pool.root.walk())
    errs = sum(v.read_errors + v.write_errors + v.checksum_errors for v in nodes)
    bad = [v.label for v in nodes if v.state in ("FAULTED", "DEGRADED", "UNAVAIL", "REMOVED")]
    if errs or bad or pool.state == "SUSPENDED":
        what = f"{errs} error(s) counted" + (f"; {', '.join(bad[:3])} not ONLINE" if bad else "")
        return Check("something to clear", True, what)
    return Check("something to clear", False, "no errors counted and nothing faulted", WARN)


def no_resilver_running(pool: Pool) -> Check:
    """Attaching during a resilver is allowed (it is deferred or restarts it), just slower."""
    scan = running_scan(pool, "resilver", "rebuild")
    if scan is not None:
        return Check(
            "no resilver running",
            False,
            f"a {scan.function} is running: the new one "
            "waits for it or restarts it, so redundancy comes later",
            WARN,
        )
    return Check("no resilver running", True, "no resilver is running")
