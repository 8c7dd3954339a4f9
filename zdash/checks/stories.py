"""The expert's story of each fault, told once: what it is, what it does to the pool, and what
to do about it, with what each way out costs. The findings quote these sentences, the bundled
scenarios' descriptions (zdash.scenarios) are made of them, and the docs repeat those
descriptions word for word (tests/test_scenarios.py holds all three to the same words).

A sentence that depends on the pool in front of the admin (which vdev, how much redundancy it
keeps) is a function of exactly those facts, so a finding and a scenario that describe the same
situation say it in the same words.
"""

from __future__ import annotations

from zdash.fmt import plural

# --- a slow disk (deranged_disk) -----------------------------------------------------------------

SLOW_RULE = (
    "One sick disk drags its whole pool: fault it and the pool's speed returns, at the cost of "
    "redundancy until it is replaced."
)
SLOW_LOOK = (
    "Look first: `smartctl -a` (pending and reallocated sectors, CRC errors), the kernel log for "
    "link resets and timeouts, its cable, slot and HBA port."
)
SLOW_RELIEF = (
    "Relief now: `zpool offline` it (`-f` faults it): the speed returns at once, and its vdev can "
    "lose one disk fewer until it is replaced."
)
SLOW_SAFE = (
    "Safe: `zpool replace` it onto a new disk while it stays in (on a mirror, `zpool attach` "
    "beside it works too): no redundancy lost, but slow until the resilver ends."
)


def slow_relief_here(top: str, left_after: int) -> str:
    """What relief now costs this vdev: `left_after` is what the redundancy model says it could
    still lose with the slow disk out (zdash.redundancy.margin(top, without=disk).left)."""
    if left_after >= 1:
        return f"Here {top} can still lose {plural(left_after, 'more disk')} with it out."
    if left_after == 0:
        return f"Here {top} would have no redundancy left with it out: relief now is a risk to accept."
    return f"Here {top} cannot serve its data without it: only the safe way applies."


def slow_disk(top: str, left_after: int) -> tuple[str, ...]:
    """The whole story for one slow disk in `top`, in the order an expert works."""
    return (SLOW_RULE, SLOW_LOOK, SLOW_RELIEF, SLOW_SAFE, slow_relief_here(top, left_after))


# --- redundancy lost (health) --------------------------------------------------------------------

NO_REDUNDANCY_RULE = (
    "A vdev with no redundancy left loses the pool with one more failure there: restore its "
    "redundancy before anything else."
)
# What to do about a device out of service, by the state ZFS gives it (the first that applies).
OFFLINE_ADVICE = (
    "An OFFLINE disk was taken out by an administrator: bring it back with `zpool online` if it is "
    "sound, or `zpool replace` it onto a new disk."
)
FAULTED_ADVICE = (
    "ZFS faulted it after too many errors and reads it no more: `zpool replace` it, and do not "
    "`zpool clear` it back into service before its SMART data and the kernel log say why it failed."
)
LABEL_ADVICE = (
    "Its ZFS label is missing or damaged (ZFS-8000-4J): `zpool online` cannot bring it back; "
    "`zpool replace` it, in place once the disk is wiped or onto a new disk."
)
UNAVAIL_ADVICE = (
    "ZFS cannot open it (unplugged, dead, or its path renamed): if it is back, `zpool online` it; "
    "if not, `zpool replace` it."
)
DEGRADED_ADVICE = (
    "ZED degraded it for too many errors: ZFS still reads it, but it cannot be counted on; "
    "`zpool replace` it while it still serves."
)
RESILVER_ADVICE = (
    "The resilver restores redundancy when it completes; until then avoid anything that stresses "
    "the remaining disks."
)
SPECIAL_RULE = (
    "A special vdev holds the pool's metadata and small blocks: the pool cannot survive its loss, "
    "so it counts like any data vdev."
)

# --- a scrub that repaired data (health) ---------------------------------------------------------

SCRUB_RULE = (
    "A scrub that repaired data means a device returned bad data: one event is bad luck, a trend "
    "is a failing disk."
)
SCRUB_ADVICE = (
    "Once the disk has been looked at, `zpool clear` its counters and scrub again: errors that "
    "come back on the same device mean replace it."
)

# --- capacity ----------------------------------------------------------------------------------

CAPACITY_RULE = (
    "Above about 80 % full the allocator falls back from quick first-fit to slow best-fit, "
    "fragmentation climbs and writes slow sharply; at 100 % even deletes can fail, because "
    "copy-on-write needs space to free space."
)
CAPACITY_ADVICE = (
    "Free space before it gets worse: destroy the snapshots that hold it (`zfs list -o space`), "
    "move data away, or add capacity."
)

# --- clones ------------------------------------------------------------------------------------

CLONE_RULE = (
    "A clone pins its origin snapshot: `zfs destroy -R` of the origin takes every dependent clone "
    "with it, their snapshots and their own clones."
)
CLONE_PROMOTE = (
    "A clone that shares nothing with its origin any more gains nothing from being a clone: `zfs "
    "promote` it to cut the dependency before deleting the original."
)

# --- ashift ------------------------------------------------------------------------------------

ASHIFT_MIX_RULE = (
    "Top-level vdevs of different ashift block `zpool remove` of any top-level vdev for good: a "
    "vdev added by mistake stays forever."
)


def ashift_mix_fix(target: int) -> str:
    return (
        f"Ashift is fixed when a vdev is created: only a new pool with every vdev at ashift {target}, "
        "the data moved onto it (`zfs send | zfs recv`), evens it out."
    )


ASHIFT_RMW_RULE = (
    "A vdev whose ashift is below its disks' physical sector size turns every smaller write into "
    "a read-modify-write, for the life of the vdev."
)


def ashift_rmw_fix(target: int) -> str:
    return (
        "Ashift is fixed when a vdev is created, and a new disk does not change it: the fix is a new "
        f"vdev or pool at ashift {target}, the data moved onto it."
    )


# --- topology ----------------------------------------------------------------------------------

WIDE_RAIDZ_RULE = (
    "Wider than about 8 disks, a raidz vdev resilvers slowly (every other disk is read to rebuild "
    "one), wastes space on parity and padding for small blocks, and gives the random IOPS of one "
    "disk."
)
WIDE_RAIDZ_ADVICE = "Prefer several narrower vdevs, or dRAID for many disks."

# --- imbalance ---------------------------------------------------------------------------------

ADDED_LATER_RULE = (
    "ZFS never moves data it has written: a vdev added to a pool that already held data stays "
    "emptier than the old ones, and writes, spread by free space, lean on it until the fills even "
    "out."
)
GROWN_RULE = (
    "A vdev grown after the data was written (bigger disks with autoexpand, a raidz expansion) "
    "keeps the blocks it had and gains only free space: it reads emptier beside its peers, and "
    "writes, spread by free space, lean on it until the fills even out."
)
REBALANCE_ADVICE = (
    "That is how a pool grows, not a fault; only rewriting the data (send/receive, or copy and "
    "rename) moves old blocks, worth it only if reads of that data are slow."
)
