"""How long a resilver or scrub may take, in words. A range, not a number: the rate depends on
the disks, the pool's load and fragmentation, and zpool's own ETA is often far off, so zdash
says what it assumes. During the run the UI shows the real progress from the snapshots.
"""

from __future__ import annotations

from zdash.fmt import fmt_bytes, fmt_duration
from zdash.model import Pool, Vdev

# Bytes per second a resilver/scrub typically sustains: (busy pool, idle pool).
HDD = (50e6, 200e6)
SSD = (200e6, 1000e6)


def _range(nbytes: int | None, rotational: bool | None) -> str:
    if nbytes is None:
        return "unknown"
    slow, fast = SSD if rotational is False else HDD
    lo, hi = nbytes / fast, nbytes / slow
    if hi < 60:
        return "under a minute"
    return f"about {fmt_duration(lo)} to {fmt_duration(hi)}"


def resilver_time(top: Vdev | None) -> str:
    """A mirror resilver copies the vdev's allocated data (not the disk's size)."""
    if top is None or top.alloc is None:
        return "a resilver of the vdev's allocated data: unknown size"
    rot = next((leaf.rotational for leaf in top.leaves() if leaf.rotational is not None), None)
    return (
        f"{_range(top.alloc, rot)} for the resilver of {fmt_bytes(top.alloc)} "
        f"(the allocated data of {top.name}); longer under load"
    )


def scrub_time(pool: Pool) -> str:
    if pool.alloc is None:
        return "a scrub reads all allocated data: unknown size"
    rot = next((leaf.rotational for leaf in pool.leaves() if leaf.rotational is not None), None)
    return f"{_range(pool.alloc, rot)} to read {fmt_bytes(pool.alloc)}; longer under load"
