"""Pre-flight checks: each one a pure function of the snapshot and probed host facts, returning a
Check that says passed or failed and why, in the words an admin needs to decide.

They are deliberately stricter than zpool where zpool's own refusal comes too late or not at
all (a bare /dev/sdX, a disk a resilver may be reading from) and never weaker: anything zpool
would refuse is refused here first, with the reason, so nothing half-runs.
"""

from __future__ import annotations

import os

from zdash.actions.plan import WARN, Check
from zdash.actions.probe import DeviceInfo
from zdash.fmt import fmt_bytes
from zdash.model import CANNOT_SERVE, Pool, Snapshot

STABLE_DIRS = ("/dev/disk/", "/dev/mapper/")


def pool_usable(pool: Pool, action: str) -> Check:
    if pool.state in CANNOT_SERVE and action != "clear":
        return Check(
            "pool usable",
            False,
            f"{pool.name} is {pool.state}: fix that first "
            "(`zpool clear` resumes a suspended pool once its devices are back)",
        )
    return Check("pool usable", True, f"{pool.name} is {pool.state}")


def fresh_status(snap: Snapshot) -> Check:
    bad = next((s for s in snap.sources if s.key == "status" and not s.ok), None)
    if bad is not None:
        return Check("fresh state", False, f"zpool status could not be read: {bad.message}")
    return Check("fresh state", True, "checked against this `zpool status`")


# --- the new disk (attach, replace) ------------------------------------------------------


def _unprobed(info: DeviceInfo, name: str) -> Check | None:
    if info.kind == "unknown":
        return Check(name, False, "not checked: no host to probe (replay)", WARN)
    return None


def target_exists(info: DeviceInfo) -> Check:
    if (skip := _unprobed(info, "target exists")) is not None:
        return skip
    name = "target exists"
    if not info.exists:
        return Check(name, False, f"{info.path} does not exist (unplugged, or a typo?)")
    if info.kind == "file":
        return Check(
            name,
            True,
            f"{info.path} is a regular file ({fmt_bytes(info.size)}): fine for test pools, not for data",
        )
    if info.kind != "block":
        return Check(name, False, f"{info.path} is not a block device")
    if not info.size:
        return Check(
            name, False, f"{info.path} has no medium (size 0): a detached loop device or an empty slot"
        )
    return Check(name, True, f"{info.path} → {info.realpath}, {fmt_bytes(info.size)}")


def target_not_in_pool(info: DeviceInfo, snap: Snapshot, spare_of: str | None = None) -> Check:
    """Both what the imported pools use (the snapshot: same path, same node, or a partition of
    the same disk) and what the disk says about itself: a ZFS label of an exported pool, or of
    another host's, shows only on the disk. `spare_of`: replace may take an available hot
    spare of that pool (the usual way to put a spare to work by hand); attach may not."""
    name = "target not in a pool"
    family = {info.kernel, *info.partitions, info.parent} - {None}
    for pool in snap.pools:
        for leaf in pool.leaves():
            real = os.path.realpath(leaf.path) if leaf.path and info.realpath else None
            if info.path == leaf.path or (real and real == info.realpath) or leaf.device in family:
                if pool.name == spare_of and leaf.vclass == "spare" and leaf.state == "AVAIL":
                    return Check(
                        name,
                        True,
                        f"{leaf.label} is an available hot spare of {pool.name}: "
                        "it takes over (replace it later to return it to the spares)",
                    )
                return Check(
                    name,
                    False,
                    f"{info.path} is already in pool {pool.name} as {leaf.label}"
                    + (" (a hot spare)" if leaf.vclass == "spare" else ""),
                )
    if (skip := _unprobed(info, name)) is not None:
        return skip
    for dev, kind, label in info.signatures:
        if kind == "zfs_member" and not (spare_of and label == spare_of and _is_spare(snap, spare_of, info)):
            return Check(
                name,
                False,
                f"/dev/{dev} carries a ZFS label of pool {label or '?'!r} "
                "(exported, destroyed or another host's); zpool refuses it. If it is really "
                f"free: zpool labelclear /dev/{dev}",
            )
    if info.probe_error:
        return Check(name, False, f"not in an imported pool; {info.probe_error}", WARN)
    return Check(name, True, "in no imported pool, and no ZFS label on the disk")


def _is_spare(snap: Snapshot, pool: str, info: DeviceInfo) -> bool:
    p = snap.pool(pool)
    return p is not None and any(
        leaf.vclass == "spare"
        and (leaf.path == info.path or (leaf.path and os.path.realpath(leaf.path) == info.realpath))
        for leaf in p.leaves()
    )


def not_the_old_disk(info: DeviceInfo, pool: Pool, old: str) -> Check:
    """In-place replace (same path, new disk): a label of this very pool on the disk at that
    path means nobody swapped it; another pool's label means the wrong disk went in."""
    if (skip := _unprobed(info, "target not in a pool")) is not None:
        return skip
    name = "target not in a pool"
    for dev, kind, label in info.signatures:
        if kind == "zfs_member" and label == pool.name:
            return Check(
                name,
                False,
                f"{info.path} still carries {pool.name}'s label: it is the old "
                f"disk, not a new one (`zpool online {pool.name} {old}` brings it back)",
            )
        if kind == "zfs_member":
            return Check(name, False, f"/dev/{dev} carries a ZFS label of pool {label or '?'!r}")
    if info.probe_error:
        return Check(name, False, info.probe_error, WARN)
    return Check(name, True, f"the disk now at {info.path} has no ZFS label: a new disk")


def target_unused(info: DeviceInfo) -> Check:
    if (skip := _unprobed(info, "target unused")) is not None:
        return skip
    name = "target unused"
    if info.holders:
        return Check(name, False, f"{info.path} is in use by {', '.join(info.holders)} (device-mapper/md)")
    other = [(d, k, label) for d, k, label in info.signatures if k != "zfs_member"]
    if other:
        d, k, label = other[0]
        return Check(
            name,
            False,
            f"/dev/{d} contains {k}{f' labelled {label!r}' if label else ''}: zpool "
            "refuses without -f, and zdash never forces. Wipe it first if it is really free",
        )
    return Check(name, True, "no filesystem, RAID or LVM signature, no holders")


def target_not_mounted(info: DeviceInfo) -> Check:
    if (skip := _unprobed(info, "target not mounted")) is not None:
        return skip
    if info.mounts:
        return Check("target not mounted", False, f"{info.path} is mounted at {', '.join(info.mounts)}")
    return Check("target not mounted", True, "not mounted, not swap")


def big_enough(info: DeviceInfo, need: int | None, of: str) -> Check:
    name = "size"
    if info.size is None or need is None:
        return Check(
            name, False, f"cannot compare sizes ({fmt_bytes(info.size)} vs {fmt_bytes(need)} of {of})", WARN
        )
    if info.size < need:
        return Check(
            name,
            False,
            f"{info.path} is {fmt_bytes(info.size)} ({info.size} B), smaller "
            f"than {of} ({fmt_bytes(need)}, {need} B): zpool refuses (device is too small)",
        )
    return Check(name, True, f"{fmt_bytes(info.size)} ≥ {fmt_bytes(need)} of {of}")


def sector_fits(info: DeviceInfo, ashift: int | None, top: str) -> Check:
    """A logical sector above 2^ashift cannot be written at all (zpool refuses: 'higher
    alignment requirement'); a physical one above it works with read-modify-write on every
    small write, which is worth a warning but must not block a repair of a degraded pool."""
    name = "sector size"
    if info.kind == "file":
        return Check(name, True, "a file: 512 B sectors")
    if ashift is None:
        return Check(name, False, f"the ashift of {top} is unknown; cannot compare", WARN)
    block = 1 << ashift
    logical, physical = info.logical_sector, info.physical_sector
    if logical and logical > block:
        return Check(
            name,
            False,
            f"{logical} B logical sectors cannot be written by {top} "
            f"(ashift {ashift} = {block} B): zpool refuses",
        )
    if physical and physical > block:
        return Check(
            name,
            False,
            f"{physical} B native sectors on an ashift {ashift} ({block} B) "
            "vdev: works, but every small write becomes read-modify-write",
            WARN,
        )
    if physical is None:
        return Check(name, False, f"native sector size unknown (ashift {ashift})", WARN)
    return Check(name, True, f"{physical} B native fits ashift {ashift} ({block} B)")


def stable_path(info: DeviceInfo) -> Check:
    name = "stable path"
    if info.path.startswith(STABLE_DIRS) or not info.path.startswith("/dev/"):
        return Check(name, True, f"{info.path} does not change between boots")
    hint = f"; the same disk is {info.stable_aliases[0]}" if info.stable_aliases else ""
    return Check(
        name,
        False,
        f"{info.path} is a kernel name that can point at another disk after "
        f"a reboot or hot-plug: use a /dev/disk/by-id path{hint}",
        WARN,
    )
