"""What the fold hands out for one tick: the snapshot, what the checks find in it, the recent past
the charts draw, each running scan's measured rate, and the leaves the vdev table marks as
outliers. Everything a screen, a report or an exporter reads of a tick comes from here, so the
numbers behind it (today model objects, later columns) can change without their readers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from zdash.checks.finding import Finding
from zdash.fold.series import Series
from zdash.model import Pool, Snapshot

# A running scan's rate as the scan check measures it, by (pool, function, start time):
# (bytes/s or None, seconds measured).
ScanRates = dict[tuple[str, str, float | None], tuple[float | None, float]]
# By pool name: the labels (path or name) of the leaves marked as outliers.
Outliers = Mapping[str, frozenset[str]]
NONE: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True, eq=False)
class Frame:
    """One tick, folded. eq=False: compared by identity (a large pool tree is never
    deep-compared to decide whether anything changed)."""

    snapshot: Snapshot
    findings: tuple[Finding, ...]
    series: Series  # the recent past (shared by the fold's frames; empty when it keeps none)
    scan_rates: ScanRates = field(default_factory=dict)
    # Every leaf the deranged_disk check names, and those it judges slow in this sample alone
    # (a disk shows as an outlier the moment it is one; the finding follows once it lasts).
    outliers: Outliers = field(default_factory=dict)

    @property
    def time(self) -> float:
        return self.snapshot.time

    def outliers_of(self, pool: Pool) -> frozenset[str]:
        """The labels of `pool`'s leaves to mark."""
        return self.outliers.get(pool.name, NONE)
