"""Devices standing in or arriving: hot spares in use, idle or unusable; replaces that cannot
finish or whose old side is not detached yet; cache (L2ARC) devices out of service."""

from __future__ import annotations

from zdash.checks._common import act
from zdash.checks.finding import Finding, Severity
from zdash.checks.health.common import ID, leaves_of, state_text, zpool_says
from zdash.fmt import fmt_list
from zdash.model import OUT_OF_SERVICE, Pool, Vdev
from zdash.redundancy import Margin, resilver_running


def _unusable_spare(pool: Pool, spare: Vdev) -> Finding:
    return Finding(
        ID,
        Severity.WARNING,
        pool.name,
        spare.label,
        "leaf",
        topic="spare",
        title=f"hot spare {spare.label} is {state_text(spare)}: it cannot stand in",
        why=(
            "A hot spare that cannot be opened will not replace a failing disk: the pool "
            "has one spare fewer than it was built with. Replace or remove it."
        ),
        evidence=(("State", state_text(spare)),),
        actions=(
            act(f"Remove the unusable spare {spare.label}", None, "zpool", "remove", pool.name, spare.label),
        ),
    )


def spares(pool: Pool, pool_margins: list[Margin]) -> list[Finding]:
    out = [
        _unusable_spare(pool, spare)
        for top in pool.top_level
        if top.vclass == "spare"
        for spare in leaves_of(top)
        if spare.state in ("FAULTED", "UNAVAIL", "REMOVED")
    ]
    out += _idle_in_use(pool)
    for m in pool_margins:
        if m.spares and not m.reduced:
            groups = [v for v in m.top.walk() if v.kind == "spare" and v.children]
            # Each spare-N holds the disk it replaces first, the spare(s) after it. Nested ones
            # (openzfs/zfs#16547: spare-6 > replacing-0 > spare-0, both draid spares for one
            # slot): the replaced disk is the first leaf down the first children, the spares are
            # every group's later children.
            stand_ins = list(
                dict.fromkeys(
                    [leaf.label for leaf in m.spares]
                    + [leaf.label for g in groups for c in g.children[1:] for leaf in leaves_of(c)]
                )
            )
            originals = list(dict.fromkeys(_first_leaf(g.children[0]) for g in groups))
            failed = [leaf for leaf in m.top.leaves() if leaf.state in OUT_OF_SERVICE]
            replaced = originals or failed
            names = fmt_list([leaf.known_as for leaf in replaced]) or "a failed disk"
            working = [leaf for leaf in originals if leaf.state not in OUT_OF_SERVICE]
            # A resilver writing the spare in (a `zpool replace` onto it, by hand or by ZED):
            # detaching it now would undo that; nothing to offer until it ends.
            arriving = resilver_running(pool)
            out.append(
                Finding(
                    ID,
                    Severity.WARNING,
                    pool.name,
                    m.top.name,
                    "vdev",
                    topic="spare",
                    title=f"hot spare{'s' if len(stand_ins) > 1 else ''} {fmt_list(stand_ins)} "
                    f"stand{'' if len(stand_ins) > 1 else 's'} in for {names} in {m.top.name}"
                    + (f" ({fmt_list([g.name for g in groups])})" if groups else ""),
                    why=_spare_arriving_why(replaced) if arriving else _spare_why(working, replaced),
                    evidence=(
                        ("Spare", fmt_list(stand_ins)),
                        ("Replaces", names),
                        *((leaf.known_as, state_text(leaf)) for leaf in replaced),
                    ),
                    actions=()
                    if arriving
                    else tuple(
                        act(f"Replace {leaf.known_as}", "replace", "zpool", "replace", pool.name, leaf.label)
                        for leaf in replaced
                        if leaf not in working
                    )
                    + tuple(
                        act(f"Return spare {s} to standby", "detach", "zpool", "detach", pool.name, s)
                        for s in (stand_ins if working else ())
                    ),
                )
            )
    return out


def _first_leaf(v: Vdev) -> Vdev:
    """The device a spare-N / replacing-N stands for: its first child, down to a disk."""
    while not v.is_leaf and v.children:
        v = v.children[0]
    return v


def _spare_arriving_why(replaced: list[Vdev]) -> str:
    names = fmt_list([leaf.known_as for leaf in replaced]) or "the disk it replaces"
    return (
        f"A resilver is writing the spare in for {names}: a `zpool replace` onto the spare, by hand "
        "or by ZED after a fault. Leave it until the resilver ends (detaching the spare now would "
        f"undo it). Then either detach {names} to make the spare permanent, or replace {names} and "
        "the spare returns to standby."
    )


def _spare_why(working: list[Vdev], replaced: list[Vdev]) -> str:
    if working:
        return (
            f"The spare stands in for {fmt_list([leaf.known_as for leaf in working])}, which still works: "
            "it was put in by hand (`zpool replace` with a spare) or the fault that called it has "
            "cleared. Until it goes back the pool has one spare fewer for the next real failure. "
            "Detach the spare to return it to standby, or detach the disk it replaced to make the "
            "spare permanent."
        )
    return (
        "The hot spare took over and the vdev is whole again on it, but the failed disk is "
        "still part of the pool and the pool has one spare fewer. Replace the failed disk "
        "(`zpool replace`); the spare then returns to standby. Or make the spare "
        "permanent by detaching the failed disk."
    )


def stuck_replaces(pool: Pool, pool_margins: list[Margin]) -> list[Finding]:
    """A replacing-N whose old device still holds the data but whose new device is out of
    service, with no resilver running: the replace cannot finish and keeps the pool DEGRADED.
    (When the old side is gone too, the redundancy finding says so.)"""
    if resilver_running(pool):
        return []
    out = []
    for m in pool_margins:
        if m.reduced:
            continue
        for v in m.top.walk():
            if v.kind != "replacing" or len(v.children) < 2:
                continue
            old, new = v.children[0], v.children[1:]
            bad = [leaf for n in new for leaf in n.leaves() if leaf.state in OUT_OF_SERVICE]
            if old.is_leaf and old.state in OUT_OF_SERVICE and not bad:
                out.append(_replaced_not_detached(pool, m.top, v, old))
                continue
            if old.state != "ONLINE" or not bad:
                continue
            names = fmt_list([f"{leaf.label} {state_text(leaf)}" for leaf in bad])
            out.append(
                Finding(
                    ID,
                    Severity.WARNING,
                    pool.name,
                    v.name,
                    "vdev",
                    topic="replace",
                    title=f"{v.name} in {m.top.name}: the replace of {old.label} cannot finish ({names})",
                    why=(
                        f"{old.label} still holds its data, but the device meant to replace it is out of "
                        "service and no resilver is running: the replace is stuck and keeps the pool "
                        "DEGRADED. Detach the new device (`zpool detach`, by its GUID when it is "
                        "missing) to cancel the replace, then replace again with a working disk."
                    ),
                    evidence=(("Old device", f"{old.label} {old.state}"), ("New device", names)),
                    actions=tuple(
                        act(
                            f"Cancel the replace: detach {leaf.label}",
                            "detach",
                            "zpool",
                            "detach",
                            pool.name,
                            leaf.guid or leaf.label,
                        )
                        for leaf in bad
                    ),
                )
            )
    return out


def _replaced_not_detached(pool: Pool, top: Vdev, v: Vdev, old: Vdev) -> Finding:
    """A replacing-N whose resilver is done (no resilver runs, its new side serves) still holding
    the old device: ZFS detaches it by itself when the replace completes, so this is usually the
    moment before; while it lasts zpool says DEGRADED, and the verdict is not OK beside it."""
    new = [leaf.label for c in v.children[1:] for leaf in leaves_of(c)]
    return Finding(
        ID,
        Severity.WARNING,
        pool.name,
        v.name,
        "vdev",
        topic="replace",
        title=f"{v.name} in {top.name}: {fmt_list(new)} is resilvered, the old {old.label} "
        f"({old.state}) not yet detached",
        why=(
            f"The replace of {old.label} has resilvered {fmt_list(new)}, and {top.name} is whole on it; "
            f"ZFS detaches {old.label} by itself when the replace completes, and until then zpool "
            f"reports the pool {pool.state}. If it stays (a replace that was interrupted, an old "
            f"device ZFS can no longer reach), detach it: `zpool detach {pool.name} {old.guid or old.label}`."
        ),
        evidence=(("Old device", state_text(old)), ("New device", fmt_list(new)), *zpool_says(pool)),
        actions=(
            act(
                f"Detach {old.label} if it stays",
                "detach",
                "zpool",
                "detach",
                pool.name,
                old.guid if old.guid and old.state != "OFFLINE" else old.label,
            ),
        ),
    )


def _idle_in_use(pool: Pool) -> list[Finding]:
    """A spare listed INUSE that no spare-N vdev of this pool holds: stuck after a replace (or
    serving another pool), so it is not ready for this pool's next failure."""
    serving = {
        leaf.label
        for top in pool.top_level
        if top.vclass != "spare"
        for v in top.walk()
        if v.kind == "spare"
        for leaf in v.children[1:]
    }
    serving |= {s.rsplit("/", 1)[-1] for s in serving}
    return [
        Finding(
            ID,
            Severity.WARNING,
            pool.name,
            spare.label,
            "leaf",
            topic="spare",
            title=f"hot spare {spare.label} is INUSE but stands in for no device of {pool.name}",
            why=(
                "zpool lists the spare as in use, yet no spare-N vdev of this pool holds it: it was "
                "left attached after a replace finished, or it serves another pool. Either way it "
                "will not take over this pool's next failure. If it serves nothing, detach it "
                "(`zpool detach`) so it returns to AVAIL; `zpool remove` and `zpool add … spare` "
                "re-adds it if detach refuses."
            ),
            evidence=(("State", state_text(spare)),),
            actions=(act(f"Detach {spare.label}", "detach", "zpool", "detach", pool.name, spare.label),),
        )
        for top in pool.top_level
        if top.vclass == "spare"
        for spare in leaves_of(top)
        if spare.state == "INUSE"
        and "in use by pool" not in (spare.aux or "")
        and spare.label not in serving
        and spare.name not in serving
    ]


def cache_devices(pool: Pool) -> list[Finding]:
    """A failed L2ARC device costs only cache hits, but a device that reads FAULTED, UNAVAIL,
    DEGRADED or REMOVED is never "OK" beside it: a warning; one taken OFFLINE on purpose, a note."""
    return [
        Finding(
            ID,
            Severity.INFO if leaf.state == "OFFLINE" else Severity.WARNING,
            pool.name,
            leaf.label,
            "leaf",
            topic="cache",
            title=f"cache device {leaf.label} is {state_text(leaf)}",
            why="A lost L2ARC device costs only cache hits: no data lives there. Replace it when convenient.",
            evidence=(("State", state_text(leaf)),),
        )
        for top in pool.top_level
        if top.vclass == "cache"
        for leaf in leaves_of(top)
        if leaf.state in OUT_OF_SERVICE
    ]
