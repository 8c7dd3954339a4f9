"""Dataset property advice for the topology check: dedup on, compression off, atime on,
directory-based xattrs. One finding per pool per property, listing the datasets."""

from __future__ import annotations

import re
from collections.abc import Callable

from zdash.checks import dedup
from zdash.checks._common import act, shallowest
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_list, plural
from zdash.model import Dataset, Pool, Snapshot

ID = "topology"


def _zfs_version(text: str | None) -> tuple[int, int] | None:
    m = re.search(r"(\d+)\.(\d+)", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def _xattr_is_dir(version: tuple[int, int] | None) -> Callable[[Dataset], bool]:
    # OpenZFS 2.3 made xattr=on mean sa; before it, on meant directory-based. With an unknown
    # version only an explicit `dir` is certain.
    on_is_dir = version is not None and version < (2, 3)
    return lambda d: d.xattr == "dir" or (on_is_dir and d.xattr == "on")


# property -> (is the dataset affected?, kinds it applies to, value to suggest, title, why)
Rule = tuple[Callable[[Dataset], bool], tuple[str, ...], str, str, str]
RULES: dict[str, Rule] = {
    "dedup": (
        lambda d: d.dedup not in (None, "off"),
        ("filesystem", "volume"),
        "off",
        "dedup on",
        "Dedup keeps a table entry for every unique block and consults it on every write and "
        "free. Once the table outgrows RAM, writes and deletes slow dramatically, and it "
        "rarely saves enough to pay for itself outside VM images or backups. Setting "
        "dedup=off stops new entries; blocks already deduplicated stay until rewritten.",
    ),
    "compression": (
        lambda d: d.compression == "off",
        ("filesystem", "volume"),
        "on",
        "compression=off",
        "LZ4 (compression=on) costs almost no CPU, gives up early on incompressible data, "
        "and usually makes I/O faster because fewer bytes hit the disks. It applies to "
        "newly written data only.",
    ),
    "atime": (
        # Judged with relatime: atime=on under relatime=on (the Linux default) costs one update a
        # day per file; only relatime=off makes every read a write. Unknown relatime: no verdict.
        lambda d: d.atime == "on" and d.relatime == "off",
        ("filesystem",),
        "off",
        "atime=on and relatime=off",
        "Every read of a file then also writes its access time: extra writes, and snapshots "
        "that grow although nothing changed. relatime=on (the Linux default) limits the "
        "damage to one update per day per file; atime=off removes it if nothing relies on "
        "access times (some mail tools do).",
    ),
}
XATTR_WHY = (
    "Directory-based extended attributes store each xattr as a hidden file: every getxattr "
    "costs extra lookups and seeks. SELinux labels, POSIX ACLs and Samba metadata hit "
    "this constantly; xattr=sa keeps them inside the file's dnode. Existing xattrs stay "
    "where they are until rewritten."
)


def _dedup_check_reports(pool: Pool | None, cfg: CheckConfig) -> bool:
    return pool is not None and dedup.in_use(pool) and dedup.ID not in cfg.disabled


def dataset_findings(snap: Snapshot, cfg: CheckConfig) -> list[Finding]:
    rules = dict(RULES)
    rules["xattr"] = (
        _xattr_is_dir(_zfs_version(snap.zfs_version)),
        ("filesystem",),
        "sa",
        "directory-based xattrs (not sa)",
        XATTR_WHY,
    )
    pools = sorted({d.pool for d in snap.datasets})
    out: list[Finding] = []
    for pool in pools:
        datasets = [d for d in snap.datasets if d.pool == pool]
        for prop, (affected, kinds, good, title, why) in rules.items():
            if prop == "dedup" and _dedup_check_reports(snap.pool(pool), cfg):
                continue  # the dedup check's note names these datasets: one finding per pool
            names = [d.name for d in datasets if d.kind in kinds and affected(d)]
            if not names:
                continue
            roots = shallowest(names)
            named = set(names)  # a set: thousands of datasets can share a setting
            values = sorted({str(getattr(d, prop)) for d in datasets if d.name in named})
            out.append(
                Finding(
                    ID,
                    Severity.INFO,
                    pool,
                    pool,
                    "pool",
                    topic=prop,
                    title=f"{pool}: {plural(len(names), 'dataset')} with {title}",
                    why=why,
                    evidence=(("Datasets", fmt_list(names)), (prop, ", ".join(values))),
                    actions=tuple(
                        act(
                            f"Set {prop}={good} on {r} (inherited below)",
                            None,
                            "zfs",
                            "set",
                            f"{prop}={good}",
                            r,
                        )
                        for r in roots[:3]
                    ),
                )
            )
    return out
