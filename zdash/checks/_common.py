"""Helpers shared by the checks: suggested actions, medians and slopes, walking pools and
history. Numbers are formatted by zdash.fmt (one home for every unit zdash prints)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from statistics import median

from zdash.checks.finding import SuggestedAction
from zdash.model import DATA_CLASSES, Pool, Snapshot, Vdev, VdevClass, ZEvent
from zdash.redundancy import INTERIOR_KINDS


def act(label: str, action: str | None, *argv: str) -> SuggestedAction:
    return SuggestedAction(label=label, argv=tuple(argv), action=action)


def is_device_path(name: str) -> bool:
    """A name a command outside zpool (smartctl) can open: a device node's path. zpool resolves
    the short names it prints (sdc, gpt/B0, ata-…) itself; nothing else does."""
    return name.startswith("/dev/")


def median_or_none(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return median(known) if known else None


# --- pools and vdev trees ---------------------------------------------------------------

SINGLE_KINDS = ("disk", "file")


def normal_vdevs(p: Pool) -> tuple[Vdev, ...]:
    return tuple(v for v in p.top_level if v.vclass == "normal")


def is_single_disk(v: Vdev) -> bool:
    return not v.children and v.kind in SINGLE_KINDS


_NOT_A_DISK = INTERIOR_KINDS | {"raidz"}  # a vdev's kinds: a leaf of these is a vdev cut short


def leaves_with_top(p: Pool, classes: Sequence[VdevClass] = DATA_CLASSES) -> Iterator[tuple[Vdev, Vdev]]:
    """(top-level vdev, leaf) for every leaf below the given classes; a single-disk
    top-level vdev is its own leaf. A mirror/raidz/draid printed without its devices (a paste
    cut after its row) has no leaf: it is not a disk (corpus 026 read "mirror-0 is dragging
    mirror-0", with `zpool offline rpool mirror-0` to go with it)."""
    for top in p.top_level:
        if top.vclass in classes:
            for leaf in top.leaves():
                if leaf.kind not in _NOT_A_DISK:
                    yield top, leaf


def parents(root: Vdev) -> dict[int, Vdev]:
    """id(child) -> parent, to find a leaf's interior vdev (replacing-N, spare-N, mirror-N)."""
    out: dict[int, Vdev] = {}
    for v in root.walk():
        for c in v.children:
            out[id(c)] = v
    return out


def find_by_key(p: Pool, key: str) -> Vdev | None:
    return next((v for v in p.root.walk() if v.key == key), None)


def pool_series(history: Sequence[Snapshot], name: str) -> list[tuple[float, Pool]]:
    """(time, pool) for every snapshot in which the pool appears, oldest first."""
    out = []
    for snap in history:
        p = snap.pool(name)
        if p is not None:
            out.append((snap.time, p))
    return out


EVENTS_WINDOW_S = 600.0  # ZED degrades a disk on N events within 10 minutes: cite the same span


def leaf_events(snap: Snapshot, pool: Pool, leaf: Vdev, kinds: Sequence[str]) -> dict[str, list[ZEvent]]:
    """ZFS's own ereports (zpool events) about a leaf in the last EVENTS_WINDOW_S, by kind."""
    out: dict[str, list[ZEvent]] = {k: [] for k in kinds}
    for e in snap.events:
        if (  # cheapest test first: most of a log names no disk (history events, config syncs)
            (
                (e.vdev_guid is not None and e.vdev_guid == leaf.guid)
                or (e.vdev_path is not None and e.vdev_path == leaf.path)
            )
            and snap.time - e.time <= EVENTS_WINDOW_S
            and (e.pool in (None, pool.name))
            and e.kind in out
        ):
            out[e.kind].append(e)
    return out


def events_evidence(found: dict[str, list[ZEvent]]) -> tuple[str, str] | None:
    """('ZFS events (10 min)', '37 delay, 2 checksum; last at 16:04:12 UTC') or None."""
    parts = [f"{len(v)} {k}" for k, v in found.items() if v]
    if not parts:
        return None
    last = max(e.time for v in found.values() for e in v)
    return (
        "ZFS events (last 10 min)",
        ", ".join(parts) + time.strftime("; last at %H:%M:%S UTC", time.gmtime(last)),
    )


# --- datasets ---------------------------------------------------------------------------


def shallowest(names: list[str]) -> list[str]:
    """The shallowest affected datasets: setting the property there is inherited below."""
    chosen = set(names)
    return [n for n in sorted(names) if not any(n.startswith(p + "/") for p in chosen if p != n)]
