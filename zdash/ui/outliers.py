"""Which leaves the vdev table marks with `!`: every leaf the deranged_disk check names (its
verdict, sustained over time, is the authority), plus the leaves that check judges slow in the
current sample alone (`sample_pool`, the same per-sample rule, so a disk shows as an outlier the
moment it is one and the finding follows once it lasts). A disk being resilvered onto is busiest
by design and is not marked for its sample (the check's own exclusion)."""

from __future__ import annotations

from collections.abc import Iterable

from zdash.checks._deranged_samples import sample_pool
from zdash.checks.deranged_disk import ID as DERANGED
from zdash.checks.deranged_disk import resilver_targets
from zdash.checks.finding import Finding
from zdash.config import CheckConfig
from zdash.model import Pool


def outlier_leaves(pool: Pool, findings: Iterable[Finding], cfg: CheckConfig) -> frozenset[str]:
    """Labels (path or name) of the leaves to mark."""
    marked = {
        f.subject
        for f in findings
        if f.pool == pool.name and f.subject_kind == "leaf" and f.check == DERANGED
    }
    samples = sample_pool(pool, cfg)
    rebuilt = resilver_targets(pool)
    marked.update(
        leaf.label
        for leaf in pool.leaves()
        if (s := samples.get(leaf.key)) is not None and s.slow and leaf.key not in rebuilt
    )
    return frozenset(marked)
