"""What a check says: a finding carries its own evidence and reasoning, so every consumer
(`zdash check --json`, the dashboard, the wall) can show *why* without re-deriving it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Severity(IntEnum):
    """Ordered worst last. UNKNOWN is "zdash cannot see": worse than a warning (the pool may be
    failing unseen), less than a known critical fault. `zdash check` exits 0/1/3/2 for them."""

    INFO = 0
    WARNING = 1
    UNKNOWN = 2
    CRITICAL = 3

    @property
    def exit_code(self) -> int:
        """The Nagios plugin exit code of a check whose worst finding has this severity."""
        return {Severity.INFO: 0, Severity.WARNING: 1, Severity.UNKNOWN: 3, Severity.CRITICAL: 2}[self]


@dataclass(frozen=True, slots=True)
class SuggestedAction:
    label: str  # "Offline the slow disk"
    argv: tuple[str, ...]  # ("zpool", "offline", "tank", "/dev/sdb") - never a shell string
    action: str | None = None  # catalog name for guided actions: attach, replace, offline, scrub...
    # Whether the plan asks for a new disk: "required", "optional", or None for the action's
    # default (attach requires one; replace may go without: in place, after swapping the disk).
    # A slow disk's safe replace requires one: in place would mean pulling the disk first.
    new_device: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    check: str  # module id: deranged_disk, imbalance, ashift, capacity, ...
    severity: Severity
    pool: str | None  # None only for host-level findings
    subject: str  # pool name, vdev name, leaf path or dataset name
    subject_kind: str  # pool, vdev, leaf, dataset
    title: str  # one line: "/dev/mapper/slowdisk is dragging mirror-1"
    why: str  # the expert's reasoning, a few sentences
    evidence: tuple[tuple[str, str], ...] = ()  # (label, formatted value) pairs
    actions: tuple[SuggestedAction, ...] = ()
    # Tells apart several findings of one check about one subject (scan: "scrub" progress vs
    # "scrub-history"; topology: "atime" vs "xattr" on one pool). Empty for most findings.
    topic: str = ""

    @property
    def key(self) -> tuple[str, str | None, str]:
        """Stable identity across ticks (the UI keeps selection/expansion by it).
        The topic, when set, is folded into the subject part so the key stays a 3-tuple."""
        return (self.check, self.pool, f"{self.subject}#{self.topic}" if self.topic else self.subject)
