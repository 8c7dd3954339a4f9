"""Error counters on devices in service and the scrub story. Counts that grew while a scrub ran
belong to the scrub: one finding for the pool ("the scrub finished at T and repaired X on DEV"),
WARNING unless data was lost. Counts that grow outside a scrub mean a device failing now:
CRITICAL until `zpool clear` resets them. Counts on a vdev itself, a repair no device shows."""

from __future__ import annotations

from collections.abc import Sequence

from zdash.checks import stories
from zdash.checks._common import act, is_device_path
from zdash.checks.finding import Finding, Severity, SuggestedAction
from zdash.checks.health.common import (
    ID,
    LOOK,
    counts,
    describe_counts,
    last_scrub,
    log_known_empty,
    zpool_says,
)
from zdash.checks.health.memory import Leaf, PoolMemory
from zdash.fmt import fmt_bytes, fmt_list, fmt_time, plural
from zdash.model import AUX_CLASSES, Pool, Scan, Vdev

# ZFS-8000-9P: "One or more devices has experienced an unrecoverable error. An attempt was made
# to correct the error." zpool prints it while a device's error counters are not zero.
REPAIRED_MSGID = "ZFS-8000-9P"
_REPAIRED_STATUS = "One or more devices has experienced an unrecoverable error"


def leaf_errors(pool: Pool, state: PoolMemory, covered: set[str], one_look: bool = False) -> list[Finding]:
    """Error counts on devices in service (a device already in a redundancy finding is told there)."""
    with_errors = [
        leaf
        for leaf in pool.leaves()
        if any(counts(leaf)) and leaf.key not in covered and leaf.vclass not in AUX_CLASSES
    ]
    if not with_errors:
        return _silent_repair(pool)
    failing = [leaf for leaf in with_errors if state.leaves.get(leaf.key, Leaf()).outside_scrub > 0]
    scrub = last_scrub(pool)
    repaired = scrub is not None and bool(scrub.processed or scrub.errors)

    def scrub_found(leaf: Vdev) -> bool:
        # Seen growing while a scrub ran; or, with no history (a paste), checksum errors next to
        # a scrub that repaired data: that is what a scrub finds. Read/write errors alone are the
        # device failing requests, which a single look cannot tie to the scrub.
        if state.leaves.get(leaf.key, Leaf()).during_scrub > 0:
            return True
        return repaired and leaf.checksum_errors > 0 and not (leaf.read_errors or leaf.write_errors)

    by_scrub = [leaf for leaf in with_errors if leaf not in failing and scrub_found(leaf)]
    out = [_failing(pool, leaf, state.leaves[leaf.key]) for leaf in failing]
    if by_scrub and scrub is not None:
        out.append(_scrub_story(pool, scrub, by_scrub))
    out += [
        _static(pool, leaf, one_look) for leaf in with_errors if leaf not in failing and leaf not in by_scrub
    ]
    return out


def vdev_errors(pool: Pool) -> list[Finding]:
    """Counters on a vdev itself (the pool row, a mirror/raidz/draid, a spare-N or replacing-N),
    not on one of its disks: I/O the vdev could not complete from any of its members. One
    finding per pool, each vdev in the evidence."""
    vdevs = [v for v in pool.root.walk() if not v.is_leaf and any(counts(v)) and v.vclass not in AUX_CLASSES]
    if not vdevs:
        return []

    def where(v: Vdev) -> str:
        if v is pool.root:
            return f"{v.name} (pool row)"
        top = next((t for t in pool.top_level if t is not v and any(x is v for x in t.walk())), None)
        return f"{v.name} in {top.name}" if top is not None else v.name

    names = [where(v) for v in vdevs]
    return [
        Finding(
            ID,
            Severity.WARNING,
            pool.name,
            vdevs[0].name if len(vdevs) == 1 else pool.name,
            "vdev" if len(vdevs) == 1 else "pool",
            topic="vdev-errors",
            title=(
                f"{pool.name}: {describe_counts(counts(vdevs[0]))} on the pool row itself"
                if vdevs == [pool.root]
                else f"{names[0]}: {describe_counts(counts(vdevs[0]))} on the vdev itself"
                if len(vdevs) == 1
                else f"{pool.name}: errors counted on the vdevs themselves ({fmt_list(names)})"
            ),
            why=(
                "A vdev's own counters, not its disks', count I/O it could not complete from any "
                "of its members: a checksum error there is a block that none of its sides (or no "
                "combination of its raidz/draid columns) returned intact. The level above may still "
                "have rebuilt it (a draid's parity, a ditto copy): only data errors listed under "
                "`errors:` (`zpool status -v`) are lost data. It comes with failing or missing "
                "members: fix those first (see the other findings), then `zpool clear` and scrub; "
                "counts that come back on the vdev mean its members return bad data together."
            ),
            evidence=tuple(
                (name, f"{describe_counts(counts(v))} ({v.state})") for name, v in zip(names, vdevs)
            ),
            actions=(
                act(f"Reset the error counters of {pool.name}", "clear", "zpool", "clear", pool.name),
                act("Scrub again to verify every block", "scrub", "zpool", "scrub", pool.name),
            ),
        )
    ]


def _silent_repair(pool: Pool) -> list[Finding]:
    """A scrub that repaired data while no device shows an error count (cleared since, or the
    repair was of blocks no device reported): the repair itself is the evidence."""
    scan = last_scrub(pool)
    if (
        scan is None
        or scan.state not in ("finished", "scanning", "paused")
        or not scan.processed
        or scan.errors
    ):
        return _said_repaired(pool)
    # A scrub still running that has already repaired is the same evidence, so far (corpus 199).
    running = scan.state != "finished"
    done = (
        f"the running scrub (started {fmt_time(scan.start_time)}) has repaired {fmt_bytes(scan.processed)} so far"
        if running
        else f"the scrub finished {fmt_time(scan.end_time)} and repaired {fmt_bytes(scan.processed)}"
    )
    # A report without its devices (a status cut before its config) says nothing of their counters.
    seen = bool(pool.root.children)
    counters = (
        "Its error counters read 0 now (cleared, or a reboot reset them), so which one is not visible here. "
        if seen
        else "The report holds no device, so neither their error counters nor which one it was is known. "
    )
    return [
        Finding(
            ID,
            Severity.WARNING,
            pool.name,
            pool.name,
            "pool",
            topic="scrub-repair",
            title=f"{pool.name}: {done}, nothing unrepairable; "
            + ("no device shows errors now" if seen else "its devices' error counters are unknown"),
            why=(
                "The scrub found blocks whose data did not match their checksum and rewrote them "
                "from redundancy: some device returned wrong data. "
                + counters
                + LOOK
                + " Scrub again: a repair that comes back points to a failing disk."
            ),
            evidence=(
                (
                    "Scrub",
                    f"{'running' if running else 'finished'}, repaired {fmt_bytes(scan.processed)}"
                    f"{' so far' if running else ''}, 0 unrepairable",
                ),
            ),
            actions=(act("Scrub again to verify every block", "scrub", "zpool", "scrub", pool.name),),
        )
    ]


def _said_repaired(pool: Pool) -> list[Finding]:
    """zpool's ZFS-8000-9P (by its code or its words) while no device shown has an error count: a
    report cut before the device that has them (corpus 275, 291). zpool prints it only while a
    device's counters are not zero, so its word is the evidence."""
    said = pool.msgid == REPAIRED_MSGID or " ".join((pool.status or "").split()).startswith(_REPAIRED_STATUS)
    if not said or any(any(counts(leaf)) for leaf in pool.leaves()):
        return []
    return [
        Finding(
            ID,
            Severity.WARNING,
            pool.name,
            pool.name,
            "pool",
            topic="said-repaired",
            title=f"{pool.name}: zpool says a device had errors ZFS corrected; this output does not show which",
            why=(
                "ZFS-8000-9P: a device returned errors or bad data and redundancy repaired them, and "
                "its error counters are not zero yet. The device rows that would show which one are "
                "not in this output: `zpool status -v` names it. "
                + LOOK
                + " Then `zpool clear` it; if its counters grow again, replace it."
            ),
            evidence=tuple(zpool_says(pool)),
            actions=(act("Show every device's error counters", None, "zpool", "status", "-v", pool.name),),
        )
    ]


def _error_evidence(leaves: Sequence[Vdev]) -> list[tuple[str, str]]:
    return [(leaf.label, f"{describe_counts(counts(leaf))} ({leaf.state})") for leaf in leaves]


def _after_errors(pool: Pool, leaves: Sequence[Vdev]) -> tuple[SuggestedAction, ...]:
    """In zpool status's own order: look, clear, scrub again, replace if they return."""
    out = [
        act(f"Look at {leaf.label}'s SMART data", None, "smartctl", "-a", leaf.label)
        for leaf in leaves
        if leaf.kind != "file" and is_device_path(leaf.label)
    ]
    out += [
        act(f"Reset the error counters of {leaf.label}", "clear", "zpool", "clear", pool.name, leaf.label)
        for leaf in leaves
    ]
    out.append(act("Scrub again to verify every block", "scrub", "zpool", "scrub", pool.name))
    out += [
        act(
            f"Replace {leaf.label} if the errors come back",
            "replace",
            "zpool",
            "replace",
            pool.name,
            leaf.label,
        )
        for leaf in leaves
    ]
    return tuple(out)


def _scrub_story(pool: Pool, scan: Scan, leaves: Sequence[Vdev]) -> Finding:
    unrepaired = (scan.errors or 0) > 0
    gone = unrepaired and log_known_empty(pool)
    lost = unrepaired and not gone
    counted = fmt_list([f"{leaf.label} ({describe_counts(counts(leaf))})" for leaf in leaves])
    if scan.state == "scanning":
        head = f"the running scrub has repaired {fmt_bytes(scan.processed or 0)} so far"
    elif scan.state == "finished":
        head = f"the scrub finished {fmt_time(scan.end_time)} and repaired {fmt_bytes(scan.processed or 0)}"
    else:
        head = f"the last scrub ({scan.state}) repaired {fmt_bytes(scan.processed or 0)}"
    tail = (
        f", {plural(scan.errors or 0, 'block')} unrepairable"
        + ("; none in the error log now" if gone else "")
        if unrepaired
        else ", nothing unrepairable"
    )
    return Finding(
        ID,
        Severity.CRITICAL if lost else Severity.WARNING,
        pool.name,
        pool.name,
        "pool",
        topic="scrub-repair",
        title=f"{pool.name}: {head} on {counted}{tail}",
        why=(
            "A scrub reads every block and checks it against its checksum; these counts are what it "
            "found and repaired from redundancy: the devices returned wrong or unreadable data. "
            + (
                "Some blocks could not be repaired from any copy: see the data errors. "
                if lost
                else "It could not repair some blocks, but zpool lists no data errors now: those "
                "blocks were freed since (the file deleted or rewritten, its snapshots destroyed) "
                "or a later pass cleared the log. Nothing is known lost now. "
                if gone
                else "Nothing was lost. "
            )
            + stories.SCRUB_RULE
            + " "
            + LOOK
            + " "
            + stories.SCRUB_ADVICE
        ),
        evidence=(
            (
                "Scrub",
                f"{scan.state}, repaired {fmt_bytes(scan.processed or 0)}, "
                f"{plural(scan.errors or 0, 'unrepairable error')}",
            ),
            *_error_evidence(leaves),
        ),
        actions=_after_errors(pool, leaves),
    )


def _where(pool: Pool, leaf: Vdev) -> str:
    """' in mirror-0' (the vdev a leaf belongs to), '' for a single-disk vdev."""
    top = next((t for t in pool.top_level if not t.is_leaf and any(x is leaf for x in t.leaves())), None)
    return f" in {top.name}" if top is not None else ""


def _failing(pool: Pool, leaf: Vdev, seen: Leaf) -> Finding:
    return Finding(
        ID,
        Severity.CRITICAL,
        pool.name,
        leaf.label,
        "leaf",
        title=f"{leaf.label}{_where(pool, leaf)}: {describe_counts(counts(leaf))} and growing",
        why=(
            f"Its error counters rose by {seen.outside_scrub} while no scrub was running (last at "
            f"{fmt_time(seen.last_growth)}): the device is failing requests now. ZFS repairs what it "
            "can from redundancy, but every error spends some of it. "
            + LOOK
            + " If the disk is at fault, replace it while the vdev still has its redundancy."
        ),
        evidence=(
            ("Errors", describe_counts(counts(leaf))),
            ("Grown (outside scrubs)", str(seen.outside_scrub)),
            ("Last growth", fmt_time(seen.last_growth)),
            ("State", leaf.state),
        ),
        actions=_after_errors(pool, [leaf]),
    )


def _static(pool: Pool, leaf: Vdev, one_look: bool = False) -> Finding:
    return Finding(
        ID,
        Severity.WARNING,
        pool.name,
        leaf.label,
        "leaf",
        title=f"{leaf.label}{_where(pool, leaf)}: {describe_counts(counts(leaf))}",
        why=(
            "Read/write errors are requests the device failed; checksum errors are data that came back "
            "wrong. ZFS repaired what it could from redundancy. "
            + (
                "These counts are as of this output, one moment: whether they still grow is not in "
                "it. Counts that do not grow point"
                if one_look
                else "These counts have not grown while zdash watched: they point"
            )
            + " to a past event (a cable, a controller reset, a power loss) or a disk "
            "starting to fail. " + LOOK + " Then `zpool clear`, and scrub: counts that come back point "
            "to the disk."
        ),
        evidence=(("Errors", describe_counts(counts(leaf))), ("State", leaf.state)),
        actions=_after_errors(pool, [leaf]),
    )
