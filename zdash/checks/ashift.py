"""Ashift: mixed ashift across top-level vdevs (WARNING: `zpool remove` is blocked for good),
leaves whose physical sector is larger than the vdev's configured sector, as the disk reports
it or as ZFS itself notes ("block size: 512B configured, 4096B native": WARNING, every small
write is a read-modify-write), and ashift below 12 on disks that are fine with it (one INFO per
pool: a design note for the next disk, not a fault). Advice never goes below ashift 12."""

from __future__ import annotations

from collections.abc import Sequence

from zdash.checks import stories, tracker
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_bytes, fmt_list
from zdash.model import DATA_CLASSES, Pool, Snapshot, Vdev

ID = "ashift"


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    """Judged on the newest snapshot alone: nothing here changes from one second to the next."""
    out: list[Finding] = []
    for pool in history[-1].pools:
        tops = [v for v in pool.top_level if v.vclass in DATA_CLASSES]
        configured = [v for v in tops if v.ashift is not None]
        if len({v.ashift for v in configured}) > 1:
            out.append(_mixed(pool, configured, cfg))
        small = []
        for top in tops:
            flagged = [f for leaf in top.leaves() if (f := _native_mismatch(pool, top, leaf))]
            out.extend(flagged)
            if not flagged and top.ashift is not None and top.ashift < cfg.ashift_recommended_min:
                small.append(top)
        if small:
            out.append(_small(pool, small, cfg))
    return out


def _mixed(pool: Pool, tops: list[Vdev], cfg: CheckConfig) -> Finding:
    groups = sorted({v.ashift for v in tops if v.ashift is not None})
    return Finding(
        ID,
        Severity.WARNING,
        pool.name,
        pool.name,
        "pool",
        title=f"{pool.name} mixes ashift {' and '.join(str(a) for a in groups)} across top-level vdevs",
        why=(
            "`zpool remove` of a top-level vdev needs every top-level vdev to share one ashift. "
            + stories.ASHIFT_MIX_RULE
            + " "
            + stories.ashift_mix_fix(max(max(groups), cfg.ashift_recommended_min))
            + f" Never add vdevs below ashift {cfg.ashift_recommended_min} to match an old "
            "one: the next disks will have 4 KiB sectors."
        ),
        evidence=tuple(
            (v.name, f"ashift {v.ashift} ({2**v.ashift} B sectors)") for v in tops if v.ashift is not None
        ),
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
    # ZFS's own note ("512B configured, 4096B native") says it even when no ashift was read.
    ashift = top.ashift if top.ashift is not None else leaf.configured_ashift
    if ashift is None:
        return None
    configured = 2**ashift
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
            f"{top.name} was created with ashift {ashift} ({configured}-byte sectors) but "
            f"{leaf.label} writes {native}-byte physical sectors. Every write smaller than or "
            "misaligned to a physical sector makes the drive read the sector, modify it and "
            "write it back (read-modify-write): small writes become several times slower, and "
            "SSDs wear faster. "
            + stories.ASHIFT_RMW_RULE
            + " "
            + stories.ashift_rmw_fix(native.bit_length() - 1)
        ),
        evidence=(
            ("Vdev", top.name),
            ("Configured", f"ashift {ashift} = {fmt_bytes(configured)}"),
            ("Native sector", fmt_bytes(native)),
        ),
    )


def _small(pool: Pool, tops: list[Vdev], cfg: CheckConfig) -> Finding:
    """One note per pool for every vdev below the recommended ashift whose disks are fine with it."""
    names = [v.name for v in tops]
    shifts = sorted({v.ashift for v in tops if v.ashift is not None})
    shown = " and ".join(str(a) for a in shifts)
    return Finding(
        ID,
        Severity.INFO,
        pool.name,
        pool.name,
        "pool",
        topic="small",
        title=(
            f"{fmt_list(names)} {'uses' if len(names) == 1 else 'use'} ashift {shown} "
            f"({'/'.join(f'{2**a}B' for a in shifts)} sectors): fine for these disks, not for 4K replacements"
        ),
        why=(
            "These disks report sectors no larger than the configured size, so nothing is slow today. "
            f"But almost every current disk uses 4 KiB physical sectors (many SSDs larger), and ashift "
            f"{cfg.ashift_recommended_min} ({2**cfg.ashift_recommended_min} B) is the safe choice even "
            "where a drive reports 512 B: a 512 B-ashift vdev turns every small write on a 4 KiB "
            "replacement disk into a read-modify-write, and `zpool replace`/`attach` may refuse such a "
            "disk outright. Ashift is chosen when a vdev is created: create new vdevs with "
            f"`-o ashift={cfg.ashift_recommended_min}` (never lower to match these)."
        ),
        evidence=tuple(
            (v.name, f"ashift {v.ashift}: {fmt_list([leaf.label for leaf in v.leaves()])}") for v in tops
        ),
    )


class Tracker(tracker.StructuralTracker):
    def judge(self, snap: Snapshot) -> list[Finding]:
        return check([snap], self.cfg)
