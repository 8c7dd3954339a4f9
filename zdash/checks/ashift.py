"""Ashift: mixed ashift across top-level vdevs, leaves whose native sector is larger than the
vdev's configured sector (read-modify-write), and ashift below 12 as advice."""

from __future__ import annotations

from collections.abc import Sequence

from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_bytes, fmt_list
from zdash.model import DATA_CLASSES, Pool, Snapshot, Vdev

ID = "ashift"


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    out: list[Finding] = []
    for pool in history[-1].pools:
        tops = [v for v in pool.top_level if v.vclass in DATA_CLASSES and v.ashift is not None]
        if len({v.ashift for v in tops}) > 1:
            out.append(_mixed(pool, tops))
        for top in tops:
            flagged = [f for leaf in top.leaves() if (f := _native_mismatch(pool, top, leaf))]
            out.extend(flagged)
            if not flagged and top.ashift < cfg.ashift_recommended_min:
                out.append(_small(pool, top, cfg))
    return out


def _mixed(pool: Pool, tops: list[Vdev]) -> Finding:
    groups = sorted({v.ashift for v in tops})
    return Finding(
        ID,
        Severity.WARNING,
        pool.name,
        pool.name,
        "pool",
        title=f"{pool.name} mixes ashift {' and '.join(str(a) for a in groups)} across top-level vdevs",
        why=(
            "`zpool remove` of a top-level vdev needs every top-level vdev to share one ashift, so "
            "with this mix no vdev can ever be removed from the pool: a vdev added by mistake "
            "stays forever. Ashift is fixed when a vdev is created; only recreating the pool "
            "(send/recv to a new one) evens it out. When adding vdevs, pass `-o ashift=N` to match."
        ),
        evidence=tuple((v.name, f"ashift {v.ashift} ({2**v.ashift} B sectors)") for v in tops),
    )


def _native_sector(leaf: Vdev) -> int | None:
    sizes = [
        s
        for s in (leaf.native_sector, 2**leaf.physical_ashift if leaf.physical_ashift is not None else None)
        if s
    ]
    return max(sizes) if sizes else None


def _native_mismatch(pool: Pool, top: Vdev, leaf: Vdev) -> Finding | None:
    native = _native_sector(leaf)
    configured = 2**top.ashift
    if native is None or native <= configured:
        return None
    return Finding(
        ID,
        Severity.WARNING,
        pool.name,
        leaf.label,
        "leaf",
        title=f"{leaf.label}: configured {configured}B, native {native}B sectors",
        why=(
            f"{top.name} was created with ashift {top.ashift} ({configured}-byte sectors) but "
            f"{leaf.label} writes {native}-byte physical sectors. Every write smaller than or "
            "misaligned to a physical sector makes the drive read the sector, modify it and "
            "write it back (read-modify-write): small writes become several times slower, and "
            "SSDs wear faster. Ashift cannot be changed on an existing vdev; replacing the disk "
            "does not help either. The fix is a new vdev (or pool) created with "
            f"ashift {native.bit_length() - 1} and the data moved onto it."
        ),
        evidence=(
            ("Vdev", top.name),
            ("Configured", f"ashift {top.ashift} = {fmt_bytes(configured)}"),
            ("Native sector", fmt_bytes(native)),
        ),
    )


def _small(pool: Pool, top: Vdev, cfg: CheckConfig) -> Finding:
    leaves = [leaf.label for leaf in top.leaves()]
    return Finding(
        ID,
        Severity.INFO,
        pool.name,
        top.name,
        "vdev",
        title=f"{top.name} uses ashift {top.ashift} ({2**top.ashift}B sectors)",
        why=(
            f"Almost every current disk uses 4 KiB physical sectors (many SSDs larger), and "
            f"ashift {cfg.ashift_recommended_min} ({2**cfg.ashift_recommended_min} B) is the "
            "safe default even where a drive reports 512 B. A 512 B-ashift vdev cannot take such "
            "replacement disks without read-modify-write, and `zpool replace`/`attach` may refuse "
            "them outright. It costs little space; it can only be chosen when a vdev is created."
        ),
        evidence=(("Ashift", str(top.ashift)), ("Leaves", fmt_list(leaves))),
    )
