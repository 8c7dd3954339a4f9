"""A disk's medium (HDD, SSD, NVMe SSD, over USB) from what the kernel says of it, and which
member of a vdev is slower by design.

A mirror write completes only when every side has it and a raidz stripe only when every column
is written, so a vdev that mixes media runs at its slowest medium's pace. That is the layout, not
a fault: a hard disk slower than the SSD beside it is not sick, and the slow-disk check must not
say it is (zdash.checks.deranged_disk); the vdev's mix is its own finding (zdash.checks.media_mix).

The medium is read from the kernel's rotational flag (sysfs queue/rotational, lsblk ROTA) and the
transport the disk is attached by (lsblk TRAN, or its sysfs path): NVMe is faster by design than
SATA/SAS flash, and a USB bridge slower than either. A different model of the same medium is not
a different design: mixing models in a mirror is what admins do on purpose (disks from one batch
tend to fail together), and disks of one kind stay well within the check's ratios of each other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from zdash.model import Vdev

# Faster by design, in this order (a rank: a higher one is faster).
RANKS = {"USB HDD": 0, "HDD": 1, "USB SSD": 2, "SSD": 3, "NVMe SSD": 4}


def medium(rotational: bool | None, transport: str | None) -> str | None:
    """The medium of a disk with this rotational flag and transport; None when the flag is
    unknown (a file vdev, a host zdash cannot look at)."""
    if rotational is None:
        return None
    usb = transport == "usb"
    if rotational:
        return "USB HDD" if usb else "HDD"
    if transport == "nvme":
        return "NVMe SSD"
    return "USB SSD" if usb else "SSD"


def slower(a: str | None, b: str | None) -> bool:
    """Is medium `a` slower by design than medium `b` (both known)?"""
    return a is not None and b is not None and RANKS[a] < RANKS[b]


def alike(a: str | None, b: str | None) -> bool:
    """Is one a fair yardstick for the other: the same medium, or either unknown?"""
    return a is None or b is None or a == b


@dataclass(frozen=True, slots=True)
class Mix:
    """A vdev whose leaves are of more than one medium: its slowest members, and the others."""

    slower: tuple[Vdev, ...]  # the leaves of the slowest medium
    faster: tuple[Vdev, ...]  # the leaves of every faster medium
    slower_medium: str
    faster_media: tuple[str, ...]  # fastest first

    def describe(self) -> str:
        """'HDD beside SSD', 'HDD beside NVMe SSD and SSD'."""
        return f"{self.slower_medium} beside {' and '.join(self.faster_media)}"


def mix(leaves: Iterable[Vdev]) -> Mix | None:
    """The media mix of a vdev's leaves, None when they are all of one medium (or unknown)."""
    known = [leaf for leaf in leaves if leaf.medium is not None]
    media = {leaf.medium for leaf in known}
    if len(media) < 2:
        return None
    slowest = min(media, key=lambda m: RANKS[m or ""])
    return Mix(
        slower=tuple(leaf for leaf in known if leaf.medium == slowest),
        faster=tuple(leaf for leaf in known if leaf.medium != slowest),
        slower_medium=slowest or "",
        faster_media=tuple(sorted((m for m in media if m != slowest and m), key=lambda m: -RANKS[m])),
    )
