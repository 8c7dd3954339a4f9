"""Join the per-command results onto the status tree. Pure: parsed records in, new Pools out.

The tree comes from `zpool status` (the only output that keeps depth); `zpool list -v -H` and
`zpool iostat -v -H` lose depth (reference §1.3, §2.3), so their rows are matched to tree nodes
by pool and by name (iostat runs with -P, so a leaf row carries its path).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from typing import Any

from zdash.media import medium
from zdash.model import DiskIo, Pool, Vdev, builder_of, evolve, field_getter, replacer_of
from zdash.parse.devices import DeviceFacts
from zdash.parse.reuse import Reuse
from zdash.parse.zpool_history import History
from zdash.parse.zpool_iostat import IostatRow
from zdash.parse.zpool_list import ListPool

NodeChanges = Callable[[Vdev, int], "dict[str, object] | None"]


def map_tree(v: Vdev, fn: Callable[[Vdev, int], Vdev], depth: int = 0) -> Vdev:
    """Rebuild a vdev tree bottom-up, letting fn replace fields of each node."""
    kids = tuple(map_tree(c, fn, depth + 1) for c in v.children)
    node = evolve(v, children=kids) if any(a is not b for a, b in zip(kids, v.children)) else v
    return fn(node, depth)


def _changed_tree(
    v: Vdev, fns: Sequence[NodeChanges], depth: int = 0, reuse: Reuse[tuple[Vdev, Vdev]] | None = None
) -> Vdev:
    """Rebuild a vdev tree bottom-up with each fn's changes to each node (fields the fns share
    none of), one new node per node changed: unchanged subtrees are kept as they are. `reuse`:
    what the same fns made of each leaf last time, by the leaf's identity (the caller drops it
    when the fns' inputs change)."""
    if reuse is not None and not v.children:
        known = (id(v), depth)  # the leaf itself is kept in the value: its id stays its own
        hit = reuse.get(known)
        if hit is not None and hit[0] is v:
            return hit[1]
        node = _changed_tree(v, fns, depth)
        reuse.put(known, (v, node))
        return node
    kids = tuple(_changed_tree(c, fns, depth + 1, reuse) for c in v.children)
    changes: dict[str, object] = {}
    for fn in fns:
        found = fn(v, depth)  # the fns read only fields no fn changes (names, kind, children)
        if found:
            changes.update(found)
    if any(a is not b for a, b in zip(kids, v.children)):
        changes["children"] = kids
    return evolve(v, **changes) if changes else v


def _space(listed: ListPool) -> NodeChanges:
    """Top-level rows carry alloc/free/frag/cap; leaf rows only their physical size (2.1.6+)."""
    by_name = {r.name: r for r in listed.vdevs}

    def fn(v: Vdev, depth: int) -> dict[str, object] | None:
        r = by_name.get(v.name) or (by_name.get(v.path) if v.path else None)
        if depth == 0 or r is None:
            return None
        if depth == 1:  # a single-disk top-level row shows the raw disk size: use alloc+free
            return {
                "size": r.space if r.space is not None else r.size,
                "alloc": r.alloc,
                "free": r.free,
                "frag_pct": r.frag_pct,
                "cap_pct": r.cap_pct,
            }
        return {"size": r.size} if v.is_leaf and r.size else None

    return fn


def _pool_space(pool: Pool, listed: ListPool) -> Pool:
    return evolve(
        pool,
        size=listed.size,
        alloc=listed.alloc,
        free=listed.free,
        frag_pct=listed.frag_pct,
        cap_pct=listed.cap_pct,
        dedup_ratio=listed.dedup_ratio,
    )


def _ashift(ashift: Mapping[str, int]) -> NodeChanges:
    def fn(v: Vdev, depth: int) -> dict[str, object] | None:
        a = ashift.get(v.name) if depth == 1 else None
        if a is None and depth == 1 and v.path:  # get all-vdevs names a disk by its short name
            a = ashift.get(v.path, ashift.get(v.path.rsplit("/", 1)[-1]))
        return {"ashift": a} if a is not None else None

    return fn


def _facts(devices: Mapping[str, DeviceFacts]) -> NodeChanges:
    """Kernel device, sector size, rotational flag, medium and model per leaf (they change only
    with the tree)."""

    def fn(v: Vdev, depth: int) -> dict[str, object] | None:
        facts = devices.get(v.path) if v.is_leaf and v.path else None
        if facts is None:
            return None
        return {
            "device": facts.device,
            "native_sector": facts.native_sector,
            "rotational": facts.rotational,
            "medium": medium(facts.rotational, facts.transport),
            "model": facts.model,
        }

    return fn


def attach_space(pool: Pool, listed: ListPool | None) -> Pool:
    """Top-level rows carry alloc/free/frag/cap; leaf rows only their physical size (2.1.6+)."""
    if listed is None:
        return pool
    return _pool_space(evolve(pool, root=_changed_tree(pool.root, [_space(listed)])), listed)


def attach_ashift(pool: Pool, ashift: Mapping[str, int] | None) -> Pool:
    if not ashift:
        return pool
    return evolve(pool, root=_changed_tree(pool.root, [_ashift(ashift)]))


def attach_history(pool: Pool, history: History) -> Pool:
    """The devices `zpool history` (or a transcript) shows a `zpool add` or a `zpool attach` of
    this pool naming."""
    added, attached = history.added.get(pool.name), history.attached.get(pool.name)
    if not (added or attached):
        return pool
    return evolve(pool, added_devices=added or (), attached_devices=attached or ())


def attach_facts(pool: Pool, devices: Mapping[str, DeviceFacts]) -> Pool:
    """Kernel device, sector size and rotational flag per leaf (they change only with the tree)."""
    return evolve(pool, root=_changed_tree(pool.root, [_facts(devices)]))


def attach_structure(
    pool: Pool,
    listed: ListPool | None,
    ashift: Mapping[str, int] | None,
    devices: Mapping[str, DeviceFacts],
    reuse: Reuse[tuple[Vdev, Vdev]] | None = None,
) -> Pool:
    """attach_facts(attach_ashift(attach_space(pool, listed), ashift), devices) in one pass over
    the tree: each node rebuilt once, not three times (every few seconds, on a 1,000-disk tree).
    `reuse`: the leaves this made last time with the same listed, ashift and devices."""
    fns = ([_space(listed)] if listed is not None else []) + ([_ashift(ashift)] if ashift else [])
    root = _changed_tree(pool.root, [*fns, _facts(devices)], 0, reuse)
    pool = evolve(pool, root=root)
    return _pool_space(pool, listed) if listed is not None else pool


def split_iostat_by_pool(rows: Iterable[IostatRow], pool_names: Set[str]) -> dict[str, list[IostatRow]]:
    """Rows of one report in order; a row named like a pool starts that pool's block."""
    out: dict[str, list[IostatRow]] = {}
    current: str | None = None
    for r in rows:
        if r.name in pool_names and r.name not in out:
            current = r.name
            out[current] = []
        if current is not None:
            out[current].append(r)
    return out


def attach_measurements(pool: Pool, rows: Sequence[IostatRow] | None, disks: Mapping[str, DiskIo]) -> Pool:
    """This tick's figures in one pass: iostat's rates (rows: this pool's, the first being the
    pool itself) on every vdev, the kernel's diskstats on every leaf with a device, and iostat's
    ALLOC/FREE on the pool and its top-level vdevs. Those are the same counters `zpool list -v`
    prints (vs_alloc, vs_space - vs_alloc), exact under -p, so capacity is current every tick
    while `zpool list` (size, fragmentation, leaf sizes) runs only now and then."""
    if not rows and not disks:
        return pool
    by_key: dict[str, IostatRow] = {}
    top = None
    if rows:
        top = rows[0]
        for r in rows[1:]:
            by_key.setdefault(r.name, r)

    # Every leaf changes every tick, so every node does: rebuilt directly, no change test, each
    # node's fields read at once and the new node built from them (no keyword dict per node).
    get = by_key.get
    disk_of = disks.get

    def measured(v: Vdev, top_level: bool = False) -> Vdev:
        if not v.children and not top_level:  # a leaf below a vdev (most nodes): io and disk only
            path = v.path
            row = get(v.name) or (get(path) if path else None)
            device = v.device
            disk = disk_of(device) if device is not None else None
            return _measured_leaf(v, v.io if row is None else row.io, v.disk if disk is None else disk)
        values: list[Any] = list(_vdev_fields(v))
        if v.children:
            values[_CHILDREN] = tuple(map(measured, v.children))
        path = values[_PATH]
        row = get(values[_NAME]) or (get(path) if path else None)
        if row is not None:
            values[_IO] = row.io
            # iostat lists no spares: a row of a spare's name is the disk standing in, inside
            # spare-N, whose 0 / 0 under -p is no space of the spare's own
            if top_level and row.alloc is not None and v.vclass != "spare":
                values[_ALLOC], values[_FREE] = row.alloc, row.free
        device = values[_DEVICE]
        if device is not None and (disk := disk_of(device)) is not None:
            values[_DISK] = disk
        return _vdev(*values)

    root = pool.root
    kids = tuple(measured(c, True) for c in root.children)
    if top is None:
        return evolve(pool, root=evolve(root, children=kids))
    space = {"alloc": top.alloc, "free": top.free} if top.alloc is not None and top.free is not None else {}
    return evolve(pool, root=evolve(root, children=kids, io=top.io), **space)


_vdev_fields = field_getter(Vdev)
_vdev = builder_of(Vdev)
_measured_leaf = replacer_of(Vdev, "io", "disk")
_INDEX = {f.name: i for i, f in enumerate(dataclasses.fields(Vdev))}
_NAME, _PATH, _DEVICE, _CHILDREN = _INDEX["name"], _INDEX["path"], _INDEX["device"], _INDEX["children"]
_IO, _DISK, _ALLOC, _FREE = _INDEX["io"], _INDEX["disk"], _INDEX["alloc"], _INDEX["free"]
