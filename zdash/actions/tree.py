"""Where a device sits in a pool's vdev tree, and which copies of the data stay whole without it.

"Healthy" is stricter than ONLINE on purpose: a disk being resilvered is ONLINE long before it
holds a full copy, and a plan that counts it as a copy could detach the only complete one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from zdash.model import Pool, Scan, Vdev


@dataclass(frozen=True, slots=True)
class Place:
    leaf: Vdev
    parent: Vdev  # the pool's root when the leaf is itself a top-level vdev
    top: Vdev  # the top-level vdev holding it (the leaf itself for a single disk)

    @property
    def single(self) -> bool:
        return self.parent.kind == "root"


def locate(pool: Pool, name: str) -> Place | None:
    """A leaf by what an admin may type: its path, zpool's name for it, its GUID, the last path
    component, or its kernel name (sdb when the path is a by-id link). An ambiguous short name
    matches nothing rather than the wrong disk."""
    exact: list[Place] = []
    loose: list[Place] = []
    for top in pool.top_level:
        for parent, leaf in _leaves_with_parent(top, pool.root):
            if name in (leaf.path, leaf.name, leaf.guid):
                exact.append(Place(leaf, parent, top))
            elif name in (os.path.basename(leaf.path or ""), leaf.device, f"/dev/{leaf.device}"):
                loose.append(Place(leaf, parent, top))
    hits = exact or loose
    return hits[0] if len(hits) == 1 else None


def _leaves_with_parent(v: Vdev, parent: Vdev) -> Iterator[tuple[Vdev, Vdev]]:
    if v.is_leaf:
        yield parent, v
    for c in v.children:
        yield from _leaves_with_parent(c, v)


def arg(leaf: Vdev) -> str:
    """How the argv names a leaf: its full path (what -P prints), else zpool's name (a GUID for
    a device that was never opened since import)."""
    return leaf.path or leaf.name


def healthy(v: Vdev) -> bool:
    return v.state == "ONLINE" and "resilvering" not in (v.aux or "")


def running_scan(pool: Pool, *functions: str) -> Scan | None:
    return next(
        (s for s in pool.scans if s.function in functions and s.state in ("scanning", "paused")), None
    )
