"""Dedup: a pool whose DEDUP ratio is above 1.00x has deduplicated blocks, and with them a dedup
table (DDT) that every write and every free of such a block must consult. What it costs is RAM
(the table must stay in the ARC), what it buys is the ratio.

The ratio comes from `zpool list` (the DEDUP column, live or pasted, headerless rows included)
and counts only blocks written with dedup on, so it says nothing about the rest of the pool. The
paste cannot show whether the table fits in RAM (that needs `zpool status -D` and the host's
memory), so the finding is a note (INFO) at every ratio; below `dedup_low_ratio` it says plainly
that the cost buys little. Datasets with dedup on (`zfs list -o dedup`) are named in the same
finding, so one pool gives one dedup finding (topology's dataset rule yields to it).
"""

from __future__ import annotations

from collections.abc import Sequence

from zdash.checks import tracker
from zdash.checks._common import act, shallowest
from zdash.checks.finding import Finding, Severity, SuggestedAction
from zdash.config import CheckConfig
from zdash.fmt import fmt_bytes, fmt_list
from zdash.model import Pool, Snapshot

ID = "dedup"

# Legacy dedup keeps about this much RAM per unique block (the "in core" size `zpool status -D`
# prints is ~150-320 B; Oracle's sizing rule, the one admins quote, is 320 B per entry).
LEGACY_ENTRY_BYTES = 320
DEFAULT_RECORD = 128 * 1024  # recordsize default: the block size the estimate assumes


def in_use(pool: Pool) -> bool:
    """Has the pool deduplicated anything (zpool prints DEDUP 1.00x until it has)?"""
    return pool.dedup_ratio is not None and pool.dedup_ratio > 1.0


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    """Judged on the newest snapshot alone: the ratio moves slowly and is not an event."""
    now = history[-1]
    return [_note(pool, now, cfg) for pool in now.pools if in_use(pool)]


def _ratio(r: float) -> str:
    return f"{r:.2f}x"


def _note(pool: Pool, snap: Snapshot, cfg: CheckConfig) -> Finding:
    ratio = pool.dedup_ratio or 1.0
    low = ratio < cfg.dedup_low_ratio
    datasets = sorted(
        d.name
        for d in snap.datasets
        if d.pool == pool.name and d.kind in ("filesystem", "volume") and d.dedup not in (None, "off")
    )
    evidence: list[tuple[str, str]] = [("Dedup ratio", _ratio(ratio))]
    estimate = ""
    if pool.alloc:
        ddt = pool.alloc / DEFAULT_RECORD * LEGACY_ENTRY_BYTES
        evidence.append(("Allocated", fmt_bytes(pool.alloc)))
        evidence.append(("Legacy DDT in RAM, at most (128 KiB blocks)", fmt_bytes(ddt)))
        estimate = (
            f"With {fmt_bytes(pool.alloc)} allocated, a legacy table at 128 KiB per block would "
            f"want up to {fmt_bytes(ddt)} of RAM (less if only part of the pool is deduplicated). "
        )
    if datasets:
        evidence.append(("Datasets with dedup on", fmt_list(datasets)))
    why = (
        f"DEDUP {_ratio(ratio)}: the blocks written with dedup on are each referenced "
        f"{ratio:.2f} times on average (the ratio counts only those blocks, not the whole pool). "
        "Every write and every free of such a block looks its checksum up in the dedup table "
        "(DDT), so the table must stay in RAM. Legacy dedup (every OpenZFS before 2.3, and "
        "tables created before the fast_dedup feature was enabled) keeps roughly 320 bytes per "
        "unique block: about 2.5 GiB per TiB of unique data at the default 128 KiB recordsize, "
        "8 times that with 16 KiB zvol blocks. "
        + estimate
        + "While the table fits in the ARC dedup costs RAM and some CPU; once it does not, every "
        "write and delete reads it from disk and the pool becomes very slow (destroying a large "
        "dataset or snapshot can stall it for hours, and so can the import after a crash). "
        "OpenZFS 2.3 fast dedup (feature fast_dedup) keeps smaller entries, logs updates instead "
        "of rewriting the table, can cap it (pool property dedup_table_quota) and prune old "
        "unique entries (zpool ddtprune); zpool prefetch -t ddt loads it into the ARC. "
        f"`zpool status -D {pool.name}` prints the table's entries and bytes in core: their "
        "product is the RAM it wants. "
    )
    if low:
        title = f"{pool.name}: dedup saves little ({_ratio(ratio)}) for the RAM its table takes"
        why += (
            f"At {_ratio(ratio)} the cost buys little: below {_ratio(cfg.dedup_low_ratio)} each TiB "
            f"of deduplicated data saves under {100 * (1 - 1 / cfg.dedup_low_ratio):.0f} % of its "
            "disk space while still keeping every unique block in the table, so cheap disk is "
            "bought with dear RAM and slower writes. Setting dedup=off stops new entries; blocks "
            "already deduplicated stay in the table until they are freed or rewritten (zfs send | "
            "zfs recv into a dataset with dedup off). "
        )
    else:
        title = f"{pool.name}: dedup in use ({_ratio(ratio)}): its table must stay in RAM"
        why += "Setting dedup=off stops new entries; blocks already deduplicated stay until rewritten."
    actions: list[SuggestedAction] = [
        act(
            "Show the dedup table (entries x bytes in core = RAM it wants)",
            None,
            "zpool",
            "status",
            "-D",
            pool.name,
        ),
    ]
    if datasets:
        actions += [
            act(f"Set dedup=off on {r} (inherited below)", None, "zfs", "set", "dedup=off", r)
            for r in shallowest(datasets)[:3]
        ]
    else:
        actions.append(
            act(
                "Which datasets have dedup on",
                None,
                "zfs",
                "get",
                "-r",
                "-t",
                "filesystem,volume",
                "dedup",
                pool.name,
            )
        )
    return Finding(
        ID,
        Severity.INFO,
        pool.name,
        pool.name,
        "pool",
        title=title,
        why=why.strip(),
        evidence=tuple(evidence),
        actions=tuple(actions),
    )


class Tracker(tracker.StructuralTracker):
    def judge(self, snap: Snapshot) -> list[Finding]:
        return check([snap], self.cfg)
