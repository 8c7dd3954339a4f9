"""Topology advice (all INFO): single-disk data vdevs, over-wide raidz, mixed top-level vdev
types. A vdev mixing media (an HDD beside an SSD) is media_mix's finding, with its measured
cost. Dataset property advice lives in _dataset_props (one finding per pool per property)."""

from __future__ import annotations

from collections.abc import Sequence

from zdash.checks import stories, tracker
from zdash.checks._common import act, is_single_disk, normal_vdevs
from zdash.checks._dataset_props import dataset_findings
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_list
from zdash.model import DATA_CLASSES, Pool, Snapshot, Vdev

ID = "topology"


def _type_of(v: Vdev) -> str:
    """raidz1/raidz2/mirror/draid..., with 'single disk' for a bare disk or file."""
    if is_single_disk(v):
        return "single disk"
    return v.kind.split(":", 1)[0]


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    """Judged on the newest snapshot alone: nothing here changes from one second to the next."""
    now = history[-1]
    out: list[Finding] = []
    for pool in now.pools:
        out += _single_disks(pool)
        out += _wide_raidz(pool, cfg)
        if (f := _mixed_types(pool)) is not None:
            out.append(f)
    out += dataset_findings(now, cfg)
    return out


def _single_disks(pool: Pool) -> list[Finding]:
    data = [v for v in pool.top_level if v.vclass in DATA_CLASSES]
    others_redundant = any(not is_single_disk(v) for v in data)
    out = []
    for v in data:
        if not is_single_disk(v):
            continue
        context = "The rest of the pool is redundant, but this vdev is not: " if others_redundant else ""
        out.append(
            Finding(
                ID,
                Severity.INFO,
                pool.name,
                v.name,
                "vdev",
                topic="single-disk",
                title=f"{v.label} is a single-disk {v.vclass} vdev: losing it loses {pool.name}",
                why=(
                    context + "ZFS stripes data over all top-level vdevs and cannot survive losing one, "
                    "so this one disk is a single point of failure for the whole pool. Attaching a "
                    "second disk to it turns it into a mirror in place."
                ),
                evidence=(
                    ("Vdev", v.label),
                    ("Class", v.vclass),
                    (
                        "Other vdevs",
                        fmt_list([f"{x.name} ({_type_of(x)})" for x in data if x is not v]) or "none",
                    ),
                ),
                # argv is the prefix: the guided attach asks for the new device and appends it.
                actions=(
                    act(
                        f"Attach a mirror disk to {v.label}", "attach", "zpool", "attach", pool.name, v.label
                    ),
                ),
            )
        )
    return out


def _wide_raidz(pool: Pool, cfg: CheckConfig) -> list[Finding]:
    out = []
    for v in pool.top_level:
        width = len(v.children)
        if v.kind.startswith("raidz") and width > cfg.raidz_max_width:
            out.append(
                Finding(
                    ID,
                    Severity.INFO,
                    pool.name,
                    v.name,
                    "vdev",
                    topic="width",
                    title=f"{v.name} is {width} disks wide (more than {cfg.raidz_max_width})",
                    why=(
                        stories.WIDE_RAIDZ_RULE
                        + " The longer a resilver takes, the longer the window for another failure. "
                        + stories.WIDE_RAIDZ_ADVICE
                        + " They trade a little space for speed and safety."
                    ),
                    evidence=(("Width", str(width)), ("Type", v.kind), ("Limit", str(cfg.raidz_max_width))),
                )
            )
    return out


def _mixed_types(pool: Pool) -> Finding | None:
    # A vdev with members but no kind is one a paste cut away (its name not shown): no type.
    vdevs = [v for v in normal_vdevs(pool) if not (v.children and v.kind in ("disk", "file"))]
    types = sorted({_type_of(v) for v in vdevs})
    if len(types) < 2:
        return None
    return Finding(
        ID,
        Severity.INFO,
        pool.name,
        pool.name,
        "pool",
        topic="vdev-types",
        title=f"{pool.name} mixes top-level vdev types: {', '.join(types)}",
        why=(
            "The pool is only as safe as its least redundant vdev and ZFS spreads every file over "
            "all of them, so performance is uneven in ways that are hard to predict."
            + (
                " With any raidz vdev present, `zpool remove` of a top-level vdev is impossible, so "
                "this layout cannot be undone without recreating the pool."
                if any(t.startswith(("raidz", "draid")) for t in types)
                else ""
            )
        ),
        evidence=tuple((v.name, _type_of(v)) for v in vdevs),
    )


class Tracker(tracker.StructuralTracker):
    def judge(self, snap: Snapshot) -> list[Finding]:
        return check([snap], self.cfg)
