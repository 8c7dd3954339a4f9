"""What every health diagnosis says the same way: a device's error counters, its state in
words, zpool's own status lines, where to look first."""

from __future__ import annotations

from zdash.fmt import plural
from zdash.model import Pool, Scan, Vdev
from zdash.redundancy import rebuilding

ID = "health"
DATA_ERRORS_MSGID = "ZFS-8000-8A"

STATE_WHY = {
    "OFFLINE": "taken offline by an administrator",
    "FAULTED": "faulted by ZFS after too many errors",
    "DEGRADED": "still read by ZFS but marked DEGRADED after too many checksum or slow-I/O errors",
    "UNAVAIL": "cannot be opened (missing, unplugged or renamed)",
    "REMOVED": "removed while the system was running",
}
LOOK = (
    "Look at the disk first: `smartctl -a` (reallocated and pending sectors, CRC errors), the "
    "kernel log (`dmesg`, `journalctl -k`) for resets and timeouts, then cabling and the HBA."
)

Counts = tuple[int, int, int]


def counts(v: Vdev) -> Counts:
    return (v.read_errors, v.write_errors, v.checksum_errors)


def describe_counts(c: Counts) -> str:
    return ", ".join(plural(n, f"{kind} error") for kind, n in zip(("read", "write", "checksum"), c) if n)


def zpool_says(pool: Pool) -> list[tuple[str, str]]:
    return [
        (label, " ".join(v.split()))
        for label, v in (("Status", pool.status), ("Action", pool.action), ("See", pool.msgid))
        if v
    ]


def state_text(leaf: Vdev) -> str:
    return leaf.state + (f" ({leaf.aux})" if leaf.aux and not rebuilding(leaf) else "")


def leaves_of(v: Vdev) -> tuple[Vdev, ...]:
    return (v,) if v.is_leaf else tuple(v.leaves())


def last_scrub(pool: Pool) -> Scan | None:
    scrubs = [s for s in pool.scans if s.function == "scrub"]
    return max(scrubs, key=lambda s: s.end_time or s.start_time or 0, default=None)


def log_known_empty(pool: Pool) -> bool:
    """zpool said "errors: No known data errors" (and no 8A): the pool's error log is empty now.
    A scrub's "with N errors" is history then: the damaged blocks were freed since (the file
    deleted or rewritten, its snapshots destroyed; 2.2+ drops a freed block's entry) or the log
    was cleared by a later clean pass. Not known-lost data now (corpus 234)."""
    return pool.error_count == 0 and not pool.error_files and pool.msgid != DATA_ERRORS_MSGID
