"""Plan builders for the actions on one disk: attach, detach, replace, offline, online.

Each names the leaf the way `zpool status -P` does (the argv carries the full path, whatever
short name was typed) and checks the new disk, when there is one, as it is on the host now.
"""

from __future__ import annotations

import dataclasses
import os

from zdash.actions import preflight as pf
from zdash.actions import rules
from zdash.actions.estimate import resilver_time
from zdash.actions.plan import WARN, ActionPlan, Check, Request, argv_for, fingerprint
from zdash.actions.probe import DeviceInfo, HostProbe
from zdash.actions.tree import Place, arg, locate
from zdash.model import Pool, Snapshot
from zdash.redundancy import margin, resilver_running


def device(pool: Pool, r: Request) -> tuple[Place | None, Request, Check]:
    place = locate(pool, r.device) if r.device else None
    if place is not None:  # the argv names the leaf the way zpool status -P does
        r = dataclasses.replace(r, device=arg(place.leaf))
    return place, r, rules.leaf_found(pool, r.device or "(none given)", place)


def _old_size(place: Place, probe: HostProbe) -> int | None:
    """The disk's own size now if it is still there (a single-disk vdev's size in zpool list is
    its allocatable space, not the disk), else what zpool list -v last said of the leaf."""
    return (place.leaf.path and probe.size(place.leaf.path)) or place.leaf.size


def _new_disk_checks(
    snap: Snapshot,
    place: Place | None,
    info: DeviceInfo,
    probe: HostProbe,
    in_place_of: Pool | None = None,
    spare_of: str | None = None,
) -> list[Check]:
    checks = [pf.target_exists(info)]
    if in_place_of is not None and not info.exists and info.kind != "unknown":
        checks[0] = Check(
            "target exists",
            False,
            f"nothing at {info.path}: a by-id path names the old "
            "disk itself, so give the new disk's path: replace POOL OLD NEW",
        )
    if in_place_of is None:
        checks.append(pf.target_not_in_pool(info, snap, spare_of))
    else:  # the old leaf has this path by definition: only the disk's own label can tell
        checks.append(pf.not_the_old_disk(info, in_place_of, place.leaf.label if place else info.path))
    checks += [pf.target_unused(info), pf.target_not_mounted(info)]
    if place is not None:
        checks.append(pf.big_enough(info, _old_size(place, probe), place.leaf.label))
        checks.append(pf.sector_fits(info, place.top.ashift, place.top.name))
    checks.append(pf.stable_path(info))
    return checks


def attach(snap: Snapshot, pool: Pool, r: Request, probe: HostProbe, base: tuple[Check, ...]) -> ActionPlan:
    place, r, found = device(pool, r)
    checks = [*base, found]
    if place is not None:
        checks.append(rules.attachable(place))
        checks.append(rules.no_resilver_running(pool))
    if r.new_device is None:
        checks.append(
            Check(
                "new device given",
                False,
                "attach needs the new disk: zdash plan attach POOL DEVICE NEW_DEVICE",
            )
        )
    else:
        info = probe.info(r.new_device)
        r = dataclasses.replace(r, new_device=info.path)  # the path as resolved: what was checked runs
        checks += _new_disk_checks(snap, place, info, probe)
    top = place.top if place else None
    if place is not None and place.single:
        grows = f"the single disk {r.device} becomes a 2-way mirror"
    elif place is not None:
        grows = f"{place.parent.name} becomes a {len(place.parent.children) + 1}-way mirror"
    else:
        grows = "its vdev becomes a mirror"
    summary = (
        f"{r.new_device} is attached to {r.device}: {grows} and ZFS resilvers its data onto "
        "the new disk; the pool stays online and the extra copy counts only once the resilver "
        "completes. Everything on the new disk is overwritten. A running scrub is canceled."
    )
    return ActionPlan(
        r,
        argv_for(r),
        f"Attach {r.new_device} to {r.device} in {pool.name}",
        summary,
        resilver_time(top),
        True,
        r.new_device,
        tuple(checks),
        fingerprint(pool),
    )


def detach(snap: Snapshot, pool: Pool, r: Request, probe: HostProbe, base: tuple[Check, ...]) -> ActionPlan:
    place, r, found = device(pool, r)
    checks = [*base, found]
    summary = f"{r.device} leaves {pool.name} at once (its data is not wiped)."
    if place is not None:
        checks += [
            rules.detachable(place),
            rules.keeps_a_copy(pool, place, "detach", r.accept_risk),
            rules.not_resilver_source(pool, place),
        ]
        left = len(place.parent.children) - 1
        if place.single:
            summary = f"{r.device} is a whole top-level vdev of {pool.name}: detach does not apply."
        elif place.parent.kind == "replacing":
            summary += f" Detaching a side of {place.parent.name} ends that replacement."
        elif left == 1:
            summary += f" {place.parent.name} is left with one disk: no redundancy until you attach another."
        else:
            summary += f" {place.parent.name} keeps {left} members."
    return ActionPlan(
        r,
        argv_for(r),
        f"Detach {r.device} from {pool.name}",
        summary,
        "seconds",
        True,
        r.device,
        tuple(checks),
        fingerprint(pool),
    )


def replace(snap: Snapshot, pool: Pool, r: Request, probe: HostProbe, base: tuple[Check, ...]) -> ActionPlan:
    place, r, found = device(pool, r)
    checks = [*base, found]
    if place is not None:
        checks.append(rules.not_being_replaced(place))
    in_place = r.new_device is None
    info = probe.info(r.new_device if r.new_device else (r.device or ""))
    if not in_place:
        r = dataclasses.replace(r, new_device=info.path)  # the path as resolved: what was checked runs
    checks += _new_disk_checks(snap, place, info, probe, pool if in_place else None, spare_of=pool.name)
    new = r.new_device or f"the new disk at {r.device}"
    summary = (
        f"{new} joins {r.device} as a replacing vdev; ZFS resilvers onto it and then detaches "
        f"{r.device} by itself. The pool keeps serving, from {r.device} too while it still "
        f"works, and writes go to both until the resilver ends (a slow {r.device} keeps the pool "
        "at its pace until then). Everything on the new disk is overwritten. A running scrub is "
        "canceled."
    )
    return ActionPlan(
        r,
        argv_for(r),
        f"Replace {r.device} with {new} in {pool.name}",
        summary,
        resilver_time(place.top if place else None),
        True,
        r.device,
        tuple(checks),
        fingerprint(pool),
    )


def offline(snap: Snapshot, pool: Pool, r: Request, probe: HostProbe, base: tuple[Check, ...]) -> ActionPlan:
    place, r, found = device(pool, r)
    checks = [*base, found]
    if place is not None:
        checks += [
            rules.state_is(place, ("ONLINE", "DEGRADED", "FAULTED"), "offline"),
            rules.keeps_a_copy(pool, place, "offline", r.accept_risk),
            rules.not_resilver_source(pool, place),
        ]
    summary = (
        f"ZFS stops using {r.device}: {_left_without(pool, place) if place else 'its vdev runs on its other members'}"
        f" until `zpool online {pool.name} {r.device}` or a replace; it stays offline across "
        "reboots. No I/O waits for it any more (a slow disk no longer sets the pool's pace). "
        "Writes made meanwhile are resilvered when it comes back."
    )
    return ActionPlan(
        r,
        argv_for(r),
        f"Offline {r.device} in {pool.name}",
        summary,
        "seconds",
        True,
        r.device,
        tuple(checks),
        fingerprint(pool),
    )


def _left_without(pool: Pool, place: Place) -> str:
    """What the leaf's vdev keeps while it is out, in the redundancy model's words."""
    after = margin(place.top, without=place.leaf, resilvering=resilver_running(pool))
    runs_on = ", ".join(leaf.label for leaf in after.whole) or "its other members"
    if after.left < 0:
        return f"{place.top.name} cannot serve its data without it"
    if after.left == 0 and after.design > 0:
        return f"{place.top.name} runs on {runs_on} with no redundancy left"
    return f"{place.top.name} runs on {runs_on} and {after.describe().removeprefix(place.top.name + ' ')}"


def online(snap: Snapshot, pool: Pool, r: Request, probe: HostProbe, base: tuple[Check, ...]) -> ActionPlan:
    place, r, found = device(pool, r)
    checks = [*base, found]
    if place is not None:
        checks.append(rules.state_is(place, ("OFFLINE", "UNAVAIL", "REMOVED", "FAULTED"), "online"))
        if place.leaf.path and place.leaf.path.startswith("/dev/") and not os.path.exists(place.leaf.path):
            checks.append(
                Check(
                    "device present",
                    False,
                    f"{place.leaf.path} does not exist: online will leave it UNAVAIL",
                    WARN,
                )
            )
    summary = f"ZFS reopens {r.device} and resilvers the writes it missed while away."
    return ActionPlan(
        r,
        argv_for(r),
        f"Online {r.device} in {pool.name}",
        summary,
        "seconds, then a short resilver",
        False,
        None,
        tuple(checks),
        fingerprint(pool),
    )
